import { fileURLToPath } from 'node:url';

/**
 * Every command that reads a manifest takes it either way: as its positional argument
 * (`mcp-run list shop.yaml`) or as `-m/--manifest` (`mcp-run list -m shop.yaml`). Both given and
 * different is bad usage (exit 2); neither is ./mcp.yaml.
 */
export const DEFAULT_MANIFEST = 'mcp.yaml';

export function manifestPath(positional: string | undefined, option: string | undefined): string {
  if (positional !== undefined && option !== undefined && positional !== option) {
    process.stderr.write(
      `mcp-run: two manifests given, ${positional} and --manifest ${option}: give one of them\n`,
    );
    process.exit(2);
  }
  return option ?? positional ?? DEFAULT_MANIFEST;
}

/**
 * The demo shipped in the package (`mcp-run --demo`), served where it lies: its database goes to the
 * data folder when that place is an installed package (util/data-folder.ts).
 */
export const DEMO_MANIFEST = fileURLToPath(new URL('../../mcp.yaml.example', import.meta.url));

/** The manifest `mcp-run` serves: the demo with `--demo` (and no manifest besides), else as above. */
export function servedManifest(
  positional: string | undefined,
  option: string | undefined,
  demo: boolean | undefined,
): string {
  if (demo && (positional !== undefined || option !== undefined)) {
    process.stderr.write(
      `mcp-run: --demo serves the demo shipped with mcp-run; give it or the manifest ${positional ?? option}, not both\n`,
    );
    process.exit(2);
  }
  return demo ? DEMO_MANIFEST : manifestPath(positional, option);
}
