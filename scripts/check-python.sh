#!/usr/bin/env bash
# streamplace needs Python 3.11 or newer; say so plainly instead of failing inside pip.
set -euo pipefail
py=${1:-python3}
if ! "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
    echo "check-python: $py is $("$py" --version 2>&1); streamplace needs Python >= 3.11. Run: make PYTHON=python3.11 ..." >&2
    exit 1
fi
