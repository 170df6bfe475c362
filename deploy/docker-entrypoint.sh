#!/bin/sh
# The container's entrypoint: each file in $MCP_RUN_SECRETS_DIR (default /run/secrets/mcp-run; a
# Kubernetes Secret mounted as a volume) becomes an environment variable named after the file, so
# the manifest's ${env:NAME} values and --auth-token-env read them without the values ever being
# written in a pod spec. Names that are not valid variable names are skipped. Then mcp-run runs
# (from $MCP_RUN_HOME, default /app: the image's folder).
set -eu
dir="${MCP_RUN_SECRETS_DIR:-/run/secrets/mcp-run}"
if [ -d "$dir" ]; then
  for file in "$dir"/*; do
    [ -f "$file" ] || continue
    name=$(basename "$file")
    case "$name" in
      *[!A-Za-z0-9_]* | [0-9]*) echo "mcp-run-entrypoint: skipped $name: not a variable name" >&2; continue ;;
    esac
    value=$(cat "$file")
    export "$name=$value"
  done
fi
exec node "${MCP_RUN_HOME:-/app}/dist/cli/bin.cjs" "$@"
