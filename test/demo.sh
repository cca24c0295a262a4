#!/usr/bin/env bash
# The main job: installs what building and running need (not the test
# tools), builds and installs segpipe (warnings are not errors here),
# starts a throwaway cluster and runs the example queries of the
# documentation (README.md, then docs/*.md: the tour loads three days of
# readings of a machine that switches on and off), printing each with its
# result.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/test/lib.sh"

ensure_deps
build_install
pg_virtualenv -t -v "$PG_MAJOR" python3 "$ROOT/test/readme.py" --demo
