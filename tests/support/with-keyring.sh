#!/usr/bin/env bash
# Runs a test in a private D-Bus session with a real, unlocked secret service: Debian's
# gnome-keyring-daemon (packages gnome-keyring and dbus, tests/packages.txt). The keyring lives
# under $XDG_DATA_HOME/keyrings (the test's own home, started empty each run) and is encrypted
# with a throwaway unlock password. The daemon is stopped when the test ends, whatever its result.
#
# Usage: bash tests/support/with-keyring.sh PROGRAM [ARG...]
set -euo pipefail

for tool in dbus-run-session dbus-send gnome-keyring-daemon; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "with-keyring: $tool is missing (install gnome-keyring and dbus: tests/install-deps.sh)" >&2
        exit 1
    fi
done
: "${XDG_DATA_HOME:?with-keyring: XDG_DATA_HOME must name the test's own data directory}"
: "${XDG_RUNTIME_DIR:?with-keyring: XDG_RUNTIME_DIR must name the test's own runtime directory}"
rm -rf "$XDG_DATA_HOME/keyrings"
mkdir -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
exec dbus-run-session -- bash -c '
    set -u
    printf %s "keyring-test-unlock" | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
    daemon=$!
    stop_daemon() { # TERM, then (after 2 s) KILL: a daemon busy at exit never holds the test up
        kill "$daemon" 2>/dev/null || return 0
        for _ in $(seq 20); do kill -0 "$daemon" 2>/dev/null || return 0; sleep 0.1; done
        echo "with-keyring: gnome-keyring-daemon did not stop within 2 s: killed" >&2
        kill -9 "$daemon" 2>/dev/null || true
    }
    trap stop_daemon EXIT
    # Wait (bounded: 10 s) until the secret service owns its bus name.
    for _ in $(seq 100); do
        if dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
            string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"; then
            "$@"
            exit $?
        fi
        sleep 0.1
    done
    echo "with-keyring: the secret service did not start within 10 s" >&2
    exit 1' with-keyring "$@"
