#!/usr/bin/env bash
# The live run page's browser test (tests/test_live_page.py) loads the page in headless Chromium from the OS's
# packages: install Debian's chromium non-interactively when it is missing. Never fails the build: where it cannot
# be installed (no apt-get, no root) it says so, and the test skips with the same reason.
set -uo pipefail

for exe in chromium chromium-browser google-chrome; do
    if command -v "$exe" >/dev/null 2>&1; then
        exit 0
    fi
done
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-chromium: no apt-get here; the browser test will skip. Install Chromium and re-run to include it." >&2
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "ensure-chromium: no Chromium, and installing it needs root (apt-get install -y chromium); the browser" \
         "tests will skip" >&2
    exit 0
fi
echo "ensure-chromium: installing Debian's chromium for the live page's browser tests" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || true
if ! apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; then
    echo "ensure-chromium: apt-get could not install chromium; the browser test will skip" >&2
    exit 0
fi
chromium --version >&2 || true
