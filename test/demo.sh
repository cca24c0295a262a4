#!/usr/bin/env bash
# The main job: installs what building and running need (test/setup.sh, not
# the test tools), builds and installs segpipe (warnings are not errors here),
# starts a throwaway cluster and runs the example queries of the
# documentation (README.md, then docs/*.md: the tour loads three days of
# readings of a machine that switches on and off), printing each with its
# result.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/test/lib.sh"

bash "$ROOT/test/setup.sh"
build_install
pg_virtualenv -t -v "$PG_MAJOR" -c "$CLUSTER_OPTS" -o "port=$(free_port)" python3 "$ROOT/test/integration/readme.py" --demo
