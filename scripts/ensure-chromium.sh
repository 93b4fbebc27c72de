#!/usr/bin/env bash
# Installs Debian's chromium for the dashboard's browser tests when it is missing.
# Root only (CI containers); otherwise it says what to run. Set MAGE_CHROMIUM to use another binary.
set -euo pipefail
if [ -n "${MAGE_CHROMIUM:-}" ] && [ -x "${MAGE_CHROMIUM}" ]; then exit 0; fi
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: installing Debian's chromium for the dashboard browser tests" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
else
  echo "ensure-chromium: chromium is missing; install it (sudo apt-get install chromium) or set MAGE_CHROMIUM" >&2
  echo "ensure-chromium: the dashboard browser tests will be skipped" >&2
fi
