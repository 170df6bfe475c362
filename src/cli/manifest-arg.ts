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
