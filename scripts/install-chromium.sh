#!/usr/bin/env bash
# Install headless Chromium (Debian's `chromium` package) for the HTML report
# tests (tests/test_html_report.py), which load the report in a real browser.
# Idempotent: does nothing when /usr/bin/chromium is already there. Installs
# only as root with apt-get; otherwise prints what to do (the tests skip
# cleanly without Chromium).
set -euo pipefail

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

if [ -x "$CHROMIUM" ]; then
    echo "install-chromium: $CHROMIUM is present"
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-chromium: $CHROMIUM is missing; install it as root with:" >&2
    echo "    apt-get update && apt-get install -y chromium" >&2
    echo "install-chromium: (the browser tests of the HTML report are skipped without it)" >&2
    exit 0
fi
echo "install-chromium: installing Debian's chromium package"
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }; then
    echo "install-chromium: apt-get could not install chromium; the browser tests will be skipped" >&2
    exit 0
fi
"$CHROMIUM" --version
