/**
 * Values in and out of DuckDB. In: each bound by its JavaScript type, as the other sources bind them
 * (integers as BIGINT, other numbers as DOUBLE, objects as JSON text); DuckDB casts a bound value to
 * the parameter's type as it casts a literal. Out: JSON-safe values, converted one row at a time so
 * that only the rows the byte budget keeps become JavaScript values; dates, times and intervals as
 * DuckDB writes them ('2024-01-31', '2024-01-31 12:00:00'), nested values (LIST, STRUCT, MAP) as
 * arrays and objects of such values.
 */
import {
  type DuckDBPreparedStatement,
  DuckDBTypeId,
  type DuckDBValueConverter,
  type JS,
  JSDuckDBValueConverter,
} from '@duckdb/node-api';
import { jsonValue } from '../result.js';

export function bindValues(prepared: DuckDBPreparedStatement, values: readonly unknown[]): void {
  values.forEach((value, i) => {
    const at = i + 1;
    if (value === null || value === undefined) prepared.bindNull(at);
    else if (typeof value === 'boolean') prepared.bindBoolean(at, value);
    else if (typeof value === 'bigint') prepared.bindHugeInt(at, value);
    else if (typeof value === 'number') {
      if (Number.isSafeInteger(value)) prepared.bindBigInt(at, BigInt(value));
      else prepared.bindDouble(at, value);
    } else if (typeof value === 'string') prepared.bindVarchar(at, value);
    else if (value instanceof Uint8Array) prepared.bindBlob(at, value);
    else prepared.bindVarchar(at, JSON.stringify(value));
  });
}

/** Types whose text form is the readable and exact one. */
const AS_TEXT = new Set<DuckDBTypeId>([
  DuckDBTypeId.DATE,
  DuckDBTypeId.TIME,
  DuckDBTypeId.TIME_NS,
  DuckDBTypeId.TIME_TZ,
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.TIMESTAMP_S,
  DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_NS,
  DuckDBTypeId.TIMESTAMP_TZ,
  DuckDBTypeId.INTERVAL,
  DuckDBTypeId.BIT,
  DuckDBTypeId.UUID,
  DuckDBTypeId.BIGNUM,
]);

export const toJson: DuckDBValueConverter<unknown> = (value, type, self) => {
  if (value === null) return null;
  if (AS_TEXT.has(type.typeId)) return String(value);
  return jsonValue(JSDuckDBValueConverter(value, type, self as unknown as DuckDBValueConverter<JS>));
};
