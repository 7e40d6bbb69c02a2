#!/usr/bin/env bash
# Install the Debian 12 packages Triage Console needs (list: tests/packages.txt).
#
# Usage:
#   bash tests/install-deps.sh [EXTRA_PACKAGE...]
#
# Only packages that are not already installed are installed; `apt-get update`
# runs only when something is missing, so a re-run on a ready machine is
# instant and needs no network. Runs apt-get directly as root, or via sudo
# otherwise. Set TRIAGE_SKIP_INSTALL=1 to skip this step entirely.
#
# Service start-up by package maintainer scripts is suppressed during the
# install (a temporary /usr/sbin/policy-rc.d, only if none exists), so the
# packaged PostgreSQL/MariaDB are not started: the tests run their own
# private servers (see tests/run-all.sh) and no systemd is needed.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pkg_file="${TRIAGE_PACKAGES_FILE:-$script_dir/packages.txt}"

log() { printf '[install-deps] %s\n' "$*" >&2; }

if [[ "${TRIAGE_SKIP_INSTALL:-0}" == 1 ]]; then
    log "TRIAGE_SKIP_INSTALL=1: skipping package installation"
    exit 0
fi

if [[ ! -r "$pkg_file" ]]; then
    log "package list not found: $pkg_file"
    exit 1
fi

packages=()
while IFS= read -r line || [[ -n "$line" ]]; do
    line="${line%%#*}"
    read -r -a words <<<"$line" || true
    packages+=("${words[@]}")
done <"$pkg_file"
packages+=("$@")

is_installed() {
    dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed$'
}

missing=()
for p in "${packages[@]}"; do
    is_installed "$p" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
    log "all ${#packages[@]} packages already installed"
    exit 0
fi

log "missing packages: ${missing[*]}"

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        log "not root and no sudo: install these packages manually: ${missing[*]}"
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y -q -o DPkg::Lock::Timeout=300
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

# Keep maintainer scripts from starting the packaged database services.
policy=/usr/sbin/policy-rc.d
created_policy=0
remove_policy() {
    if ((created_policy)); then "${SUDO[@]}" rm -f "$policy"; fi
}
trap remove_policy EXIT
if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\n# temporary, created by triage tests/install-deps.sh\nexit 101\n' |
        "${SUDO[@]}" tee "$policy" >/dev/null
    "${SUDO[@]}" chmod 755 "$policy"
    created_policy=1
fi

retry() {
    local n
    for n in 1 2 3; do
        if "$@"; then return 0; fi
        log "attempt $n failed: $*"
        sleep $((n * 5))
    done
    return 1
}

retry "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
retry "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" "${missing[@]}"

still=()
for p in "${missing[@]}"; do
    is_installed "$p" || still+=("$p")
done
if ((${#still[@]})); then
    log "still not installed after apt-get: ${still[*]}"
    exit 1
fi
log "installed: ${missing[*]}"
