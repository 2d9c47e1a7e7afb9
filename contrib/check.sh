#!/usr/bin/env bash
# Checks of contrib/ that need tools outside cargo (cli/tests/contrib.rs
# checks the rest on every `cargo test`):
#   - grafana-dashboard.json is JSON (python3 -m json.tool);
#   - hermit.service passes `systemd-analyze verify` without a warning, and
#     `systemd-analyze security` rates it at most 2.0 ("OK").
# systemd need not run: both work offline on a scratch root holding the
# unit, the system's own units and a stand-in for /usr/local/bin/hermit.
# A tool that is missing is reported and skipped, not failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
status=0

if command -v python3 >/dev/null; then
    python3 -m json.tool "$here/grafana-dashboard.json" >/dev/null
    echo "grafana-dashboard.json: valid JSON"
else
    echo "python3 not found: JSON not checked" >&2
fi

if command -v systemd-analyze >/dev/null; then
    root=$(mktemp -d)
    trap 'rm -rf "$root"' EXIT
    mkdir -p "$root/usr/local/bin" "$root/etc/systemd/system" "$root/usr/lib/systemd"
    cp -a /lib/systemd/system "$root/usr/lib/systemd/"
    printf '#!/bin/sh\n' >"$root/usr/local/bin/hermit"
    chmod +x "$root/usr/local/bin/hermit"
    cp "$here/hermit.service" "$root/etc/systemd/system/"
    # verify exits 0 on unknown keys and bad values: its stderr says.
    warnings=$(systemd-analyze verify --root="$root" hermit.service 2>&1) || status=1
    if [ -n "$warnings" ]; then
        echo "hermit.service: systemd-analyze verify:" >&2
        echo "$warnings" >&2
        status=1
    else
        echo "hermit.service: systemd-analyze verify clean"
    fi
    exposure=$(systemd-analyze security --offline=yes --root="$root" hermit.service 2>/dev/null |
        sed -n 's/.*Overall exposure level for hermit.service: \([0-9.]*\).*/\1/p')
    echo "hermit.service: exposure ${exposure:-unknown}"
    if [ -z "$exposure" ] || ! awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }'; then
        echo "hermit.service: exposure above 2.0" >&2
        status=1
    fi
else
    echo "systemd-analyze not found: hermit.service not verified" >&2
fi
exit $status
