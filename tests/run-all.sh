#!/usr/bin/env bash
# Triage Console test command (this is what CI's .ci/run calls).
#
# Usage:
#   bash tests/run-all.sh [CTEST_ARGS...]   install deps, start private PostgreSQL
#                                           and MariaDB servers, configure, build,
#                                           run ctest, stop the servers.
#                                           e.g.  bash tests/run-all.sh -R backends
#   bash tests/run-all.sh --servers-only    start the servers, print `export ...`
#                                           lines on stdout and leave the servers
#                                           running in the background:
#                                             eval "$(bash tests/run-all.sh --servers-only)"
#                                           (the same lines are also written to
#                                           <root>/env.sh for `source`); run again
#                                           while they run, it reuses them and
#                                           keeps their data
#   bash tests/run-all.sh --stop            stop servers left by --servers-only
#   options: --no-install (same as TRIAGE_SKIP_INSTALL=1), -h/--help;
#            `--` ends our options, everything else goes to ctest.
#
# What it does:
#   1. tests/install-deps.sh: installs missing Debian packages (tests/packages.txt).
#   2. Starts its OWN PostgreSQL 15 (as OS user postgres) and MariaDB (as OS user
#      mysql) in private, freshly initialised data dirs under
#      ${TRIAGE_TEST_ROOT:-<repo>/build/test-servers}, listening only on
#      127.0.0.1. Both servers run in a NON-UTC time zone on purpose
#      (PostgreSQL: Asia/Kolkata, MariaDB: +05:30). Role/user `triage`,
#      password `triage` (superuser / ALL ON *.* WITH GRANT OPTION), database
#      `triage`. Packaged servers on the default ports are ignored.
#      In front of that PostgreSQL it starts Debian's pgbouncer (as OS user
#      postgres, own config under <root>/pgbouncer, 127.0.0.1 only) in
#      transaction mode, default_pool_size 4, every database name forwarded to
#      the PostgreSQL server (`* = host=... port=...`, so per-test databases work
#      without a reload); user `triage` (SCRAM) is also its admin-console user.
#   3. Exports for the tests:
#        TRIAGE_TEST_PG_URL=postgresql://triage@127.0.0.1:<port>/triage
#        TRIAGE_TEST_PG_REPLICA_URL=postgresql://triage@127.0.0.1:<port>/triage
#          (a streaming standby of that server: pg_basebackup -R, its own port;
#           both load pg_stat_statements so tests can see which server ran what)
#        TRIAGE_TEST_PGBOUNCER_URL=postgresql://triage@127.0.0.1:<port>/triage
#        TRIAGE_TEST_PGBOUNCER_ADMIN_URL=postgresql://triage@127.0.0.1:<port>/pgbouncer
#        TRIAGE_TEST_MYSQL_URL=mysql://triage@127.0.0.1:<port>/triage
#        TRIAGE_TEST_MYSQL_REPLICA_URL=mysql://triage@127.0.0.1:<port>/triage
#          (a GTID replica of that server: its own data dir and port; the primary
#           writes a binary log, the replica replays what tst_replica_mysql reads)
#        TRIAGE_TEST_PG_PASSWORD=triage  TRIAGE_TEST_MYSQL_PASSWORD=triage
#        TRIAGE_TEST_REQUIRE_ALL_BACKENDS=1  QT_QPA_PLATFORM=offscreen
#   4. cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo (an
#      existing configured build dir is reused as is), cmake --build, then
#      ctest --test-dir build --output-on-failure -j2 [CTEST_ARGS...].
#   Exit code: ctest's, or the failing step's. The servers are always stopped
#   on exit (except with --servers-only).
#
# Environment overrides:
#   BUILD_DIR (build)            TRIAGE_TEST_ROOT (<repo>/build/test-servers)
#   TRIAGE_TEST_PG_PORT (55432)  TRIAGE_TEST_MYSQL_PORT (53306)
#   TRIAGE_TEST_PG_REPLICA_PORT (55532)  TRIAGE_TEST_MYSQL_REPLICA_PORT (53307)
#   TRIAGE_TEST_PGBOUNCER_PORT (56432)  TRIAGE_PGBOUNCER_BIN (/usr/sbin/pgbouncer)
#     (the defaults move up to the next free port if taken; an explicitly set
#      port that is taken is an error)
#   TRIAGE_PG_BIN (/usr/lib/postgresql/15/bin)   TRIAGE_SKIP_INSTALL=1
#   CMAKE_ARGS (extra args for the first configure)   TRIAGE_BUILD_JOBS (2)
#   TRIAGE_TEST_JOBS (2)   TRIAGE_SERVER_START_TIMEOUT (seconds, 90)
set -euo pipefail

export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

log() { printf '[run-all] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; }

mode="test"
ctest_args=()
while (($#)); do
    case "$1" in
        --servers-only) mode=servers ;;
        --stop) mode=stop ;;
        --no-install) export TRIAGE_SKIP_INSTALL=1 ;;
        -h | --help) usage; exit 0 ;;
        --) shift; ctest_args+=("$@"); break ;;
        *) ctest_args+=("$1") ;;
    esac
    shift
done

is_root=0
[[ $(id -u) -eq 0 ]] && is_root=1

timeout_s=${TRIAGE_SERVER_START_TIMEOUT:-90}
pg_tz='Asia/Kolkata'
my_tz='+05:30'

# ---------------------------------------------------------------- helpers

# Run a command as the postgres / mysql OS user when we are root (initdb and
# postgres refuse to run as root); as ourselves otherwise.
as_pg() { if ((is_root)); then runuser -u postgres -- "$@"; else "$@"; fi; }

own() { # own USER PATH...
    local user=$1; shift
    if ((is_root)); then chown -R "$user:$user" "$@"; fi
}

port_busy() {
    timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

pick_port() { # pick_port DEFAULT EXPLICIT_VALUE_OR_EMPTY NAME
    local def=$1 explicit=$2 name=$3 p
    if [[ -n "$explicit" ]]; then
        [[ "$explicit" =~ ^[0-9]+$ ]] || die "$name port '$explicit' is not a number"
        port_busy "$explicit" && die "$name port $explicit (set explicitly) is already in use"
        echo "$explicit"
        return 0
    fi
    for ((p = def; p < def + 200; p++)); do
        if ! port_busy "$p"; then
            [[ $p -ne $def ]] && log "$name: port $def is in use, using $p"
            echo "$p"
            return 0
        fi
    done
    die "$name: no free port in $def..$((def + 199))"
}

# Is PID alive and running one of the given program names?
pid_is() { # pid_is PID NAME...
    local pid=$1 comm; shift
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
    local n
    for n in "$@"; do [[ "$comm" == "$n" ]] && return 0; done
    return 1
}

# Terminate one process by id, escalate to SIGKILL after a grace period.
term_wait() { # term_wait PID SECONDS NAME...
    local pid=$1 secs=$2 i; shift 2
    pid_is "$pid" "$@" || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < secs * 5; i++)); do
        pid_is "$pid" "$@" || return 0
        sleep 0.2
    done
    log "pid $pid did not stop in ${secs}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
}

tail_log() { # tail_log FILE
    if [[ -f "$1" ]]; then
        log "---- last lines of $1 ----"
        tail -n 40 "$1" >&2 || true
        log "----"
    fi
}

# ---------------------------------------------------------------- server root

# Both server users must be able to reach the root dir, and unix socket paths
# must stay short (~107 bytes max). Otherwise fall back to a deterministic
# directory under /tmp (so --stop finds it again).
fallback_root="/tmp/triage-test-servers-$(printf '%s' "$repo" | cksum | cut -d' ' -f1)"

root_usable() { # root_usable DIR
    local d=$1
    ((${#d} <= 70)) || return 1
    mkdir -p "$d" 2>/dev/null || return 1
    chmod 755 "$d" 2>/dev/null || true
    if ((is_root)); then
        runuser -u postgres -- test -x "$d" 2>/dev/null || return 1
        runuser -u mysql -- test -x "$d" 2>/dev/null || return 1
    fi
    return 0
}

resolve_root() {
    if [[ -n "${TRIAGE_TEST_ROOT:-}" ]]; then
        root=$TRIAGE_TEST_ROOT
        [[ "$root" == /* ]] || root="$repo/$root"
        root_usable "$root" || die "TRIAGE_TEST_ROOT=$root is unusable (path must be <= 70 chars and reachable by the postgres and mysql users)"
    elif root_usable "$repo/build/test-servers"; then
        root="$repo/build/test-servers"
    else
        root=$fallback_root
        log "note: $repo/build/test-servers is unusable for the servers (long path or parent not reachable by postgres/mysql); using $root"
        root_usable "$root" || die "cannot use $root either"
    fi
}

pg_bin=${TRIAGE_PG_BIN:-/usr/lib/postgresql/15/bin}

# ---------------------------------------------------------------- stop

stop_pg() { # stop_pg ROOT [SUBDIR: pg (default) or pg-standby]
    local data="$1/${2:-pg}/data" pid
    [[ -f "$data/postmaster.pid" ]] || return 0
    pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null || true)
    pid_is "$pid" postgres || return 0
    log "stopping PostgreSQL ${2:-pg} (pid $pid)"
    stopped_any=1
    if [[ -x "$pg_bin/pg_ctl" ]]; then
        (cd / && as_pg "$pg_bin/pg_ctl" -D "$data" -m fast -w -t 30 stop) >/dev/null 2>&1 || true
    fi
    term_wait "$pid" 20 postgres
}

stop_mysql() { # stop_mysql ROOT [SUBDIR: mysql (default) or mysql-replica]
    local pidfile="$1/${2:-mysql}/run/mysqld.pid" pid
    [[ -f "$pidfile" ]] || return 0
    pid=$(head -n 1 "$pidfile" 2>/dev/null || true)
    pid_is "$pid" mariadbd mysqld || return 0
    log "stopping MariaDB ${2:-mysql} (pid $pid)"
    stopped_any=1
    term_wait "$pid" 60 mariadbd mysqld
}

stop_pgbouncer() { # stop_pgbouncer ROOT
    local pidfile="$1/pgbouncer/run/pgbouncer.pid" pid
    [[ -f "$pidfile" ]] || return 0
    pid=$(head -n 1 "$pidfile" 2>/dev/null || true)
    pid_is "$pid" pgbouncer || return 0
    log "stopping pgbouncer (pid $pid)"
    stopped_any=1
    term_wait "$pid" 20 pgbouncer
}

stop_servers_at() { # stop_servers_at ROOT
    [[ -d "$1" ]] || return 0
    stop_pgbouncer "$1" || true
    stop_pg "$1" pg-standby || true
    stop_pg "$1" || true
    stop_mysql "$1" mysql-replica || true
    stop_mysql "$1" || true
}

# ---------------------------------------------------------------- PostgreSQL

pg_start() { # pg_start DIR NAME: pg_ctl start of DIR/data, logs in DIR; dies naming NAME
    local d=$1
    if ! (cd "$d" && as_pg env TZ="$pg_tz" "$pg_bin/pg_ctl" -D "$d/data" -l "$d/postgres.log" -w -t "$timeout_s" start) \
        >>"$d/pg_ctl.log" 2>&1; then
        tail_log "$d/pg_ctl.log"
        tail_log "$d/postgres.log"
        die "$2 did not start"
    fi
}

start_pg() {
    local d="$root/pg" port=$1
    local data="$d/data" run="$d/run" logf="$d/postgres.log"
    [[ -x "$pg_bin/initdb" ]] || die "PostgreSQL binaries not found in $pg_bin (set TRIAGE_PG_BIN)"

    rm -rf "$d"
    mkdir -p "$run"
    own postgres "$d"
    chmod 700 "$d"

    log "PostgreSQL: initdb in $data"
    if ! (cd "$d" && as_pg env TZ="$pg_tz" LC_ALL=C.UTF-8 "$pg_bin/initdb" -D "$data" -U postgres \
        -E UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 --no-sync) \
        >"$d/initdb.log" 2>&1; then
        tail_log "$d/initdb.log"
        die "PostgreSQL initdb failed"
    fi

    cat >>"$data/postgresql.conf" <<EOF

# ---- added by tests/run-all.sh (private test server) ----
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$run'
timezone = '$pg_tz'
log_timezone = '$pg_tz'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
password_encryption = 'scram-sha-256'
# which server ran which statement (the read-replica tests read it on both servers)
shared_preload_libraries = 'pg_stat_statements'
EOF
    # initdb already writes scram-sha-256 for host 127.0.0.1/32 and trust for
    # local; make it explicit in case defaults change. `replication` over the socket: the
    # standby's pg_basebackup and WAL stream (start_pg_standby).
    cat >"$data/pg_hba.conf" <<EOF
# TYPE  DATABASE  USER  ADDRESS        METHOD
local   all       all                  trust
local   replication all                trust
host    all       all   127.0.0.1/32   scram-sha-256
host    all       all   ::1/128        scram-sha-256
EOF
    own postgres "$data"

    log "PostgreSQL: starting on 127.0.0.1:$port (TZ $pg_tz)"
    pg_start "$d" PostgreSQL

    if ! (cd "$d" && as_pg "$pg_bin/psql" -X -q -h "$run" -p "$port" -U postgres -d postgres \
        -v ON_ERROR_STOP=1 \
        -c "CREATE ROLE triage WITH LOGIN SUPERUSER PASSWORD 'triage'" \
        -c "CREATE DATABASE triage OWNER triage") >>"$d/setup.log" 2>&1; then
        tail_log "$d/setup.log"
        tail_log "$logf"
        die "PostgreSQL: creating role/database failed"
    fi

    # Verify the path the tests use: TCP + password.
    local out
    if ! out=$(PGPASSWORD=triage PGCONNECT_TIMEOUT=10 "$pg_bin/psql" -X -At -h 127.0.0.1 -p "$port" \
        -U triage -d triage -c 'show timezone' 2>&1); then
        log "$out"
        tail_log "$logf"
        die "PostgreSQL: cannot connect as triage over TCP"
    fi
    log "PostgreSQL: ready (timezone=$out)"
}

# A streaming standby of the test server (the read-replica tests; DESIGN.md §9 "Read
# replicas"): pg_basebackup -R over the primary's socket, its own port and socket dir.
start_pg_standby() { # start_pg_standby PORT PRIMARY_PORT
    local d="$root/pg-standby" port=$1 pport=$2
    local data="$d/data" run="$d/run" logf="$d/postgres.log"
    rm -rf "$d"
    mkdir -p "$run"
    own postgres "$d"
    chmod 700 "$d"
    log "PostgreSQL standby: pg_basebackup from port $pport"
    if ! (cd "$d" && as_pg "$pg_bin/pg_basebackup" -h "$root/pg/run" -p "$pport" -U postgres -D "$data" \
        -R -X stream --no-sync -c fast) >"$d/basebackup.log" 2>&1; then
        tail_log "$d/basebackup.log"
        die "PostgreSQL standby: pg_basebackup failed"
    fi
    cat >>"$data/postgresql.conf" <<EOF

# ---- the standby's own (tests/run-all.sh) ----
port = $port
unix_socket_directories = '$run'
hot_standby = on
EOF
    own postgres "$data"
    log "PostgreSQL standby: starting on 127.0.0.1:$port"
    pg_start "$d" "PostgreSQL standby"
    local out
    if ! out=$(PGPASSWORD=triage PGCONNECT_TIMEOUT=10 "$pg_bin/psql" -X -At -h 127.0.0.1 -p "$port" \
        -U triage -d triage -c 'select pg_is_in_recovery()' 2>&1) || [[ "$out" != t ]]; then
        log "$out"
        tail_log "$logf"
        die "PostgreSQL standby: not a hot standby on 127.0.0.1:$port"
    fi
    log "PostgreSQL standby: ready (in recovery)"
}

# ---------------------------------------------------------------- pgbouncer

pgbouncer_bin=${TRIAGE_PGBOUNCER_BIN:-/usr/sbin/pgbouncer}

start_pgbouncer() { # start_pgbouncer PORT PG_PORT
    local d="$root/pgbouncer" port=$1 pgport=$2
    local run="$d/run" logf="$d/pgbouncer.log"
    [[ -x "$pgbouncer_bin" ]] || die "pgbouncer not found at $pgbouncer_bin (is the pgbouncer package installed?)"
    rm -rf "$d"
    mkdir -p "$run"
    # The test role's password is the public test password (see above); pgbouncer
    # needs it to log in to PostgreSQL with SCRAM on the client's behalf.
    printf '"triage" "triage"\n' >"$d/userlist.txt"
    # Transaction mode: a server connection serves a client for one transaction
    # only, so nothing may rely on session state (DESIGN.md §4). Pool size >= 2
    # so that concurrent clients really use several server connections.
    cat >"$d/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=$pgport

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $d/userlist.txt
admin_users = triage
pool_mode = transaction
default_pool_size = 4
max_client_conn = 1000
logfile = $logf
pidfile = $run/pgbouncer.pid
ignore_startup_parameters = extra_float_digits
EOF
    chmod 600 "$d/userlist.txt"
    own postgres "$d"
    chmod 700 "$d"

    log "pgbouncer: starting on 127.0.0.1:$port (transaction mode, PostgreSQL port $pgport)"
    if ! (cd "$d" && as_pg "$pgbouncer_bin" -d "$d/pgbouncer.ini") >>"$d/start.log" 2>&1; then
        tail_log "$d/start.log"
        tail_log "$logf"
        die "pgbouncer did not start"
    fi
    local out i
    for ((i = 0; i < timeout_s * 2; i++)); do
        if out=$(PGPASSWORD=triage PGCONNECT_TIMEOUT=5 "$pg_bin/psql" -X -At -h 127.0.0.1 -p "$port" \
            -U triage -d triage -c 'select 1' 2>&1); then
            log "pgbouncer: ready"
            return 0
        fi
        sleep 0.5
    done
    log "$out"
    tail_log "$logf"
    die "pgbouncer does not accept connections on 127.0.0.1:$port"
}

# ---------------------------------------------------------------- MariaDB

find_mysqld() {
    local c
    for c in mariadbd mysqld; do
        if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
    done
    return 1
}

my_client() { # client with no option files (ignore /etc/mysql)
    local c
    c=$(command -v mariadb || command -v mysql) || die "mariadb client not found"
    "$c" --no-defaults "$@"
}

# start_mysql PORT [SUBDIR SERVER_ID PRIMARY_PORT]: the primary (server id 1, binary log on,
# the test users and database), or with PRIMARY_PORT a GTID replica of it that gets the users
# and databases by replication (the read-replica tests; DESIGN.md §9 "Read replicas").
start_mysql() {
    local d="$root/${2:-mysql}" port=$1 server_id=${3:-1} primary_port=${4:-}
    local name="MariaDB"
    [[ -n "$primary_port" ]] && name="MariaDB replica"
    local data="$d/data" run="$d/run" tmp="$d/tmp" errlog="$d/error.log"
    local sock="$run/mysqld.sock" pidfile="$run/mysqld.pid"
    local mysqld installdb
    mysqld=$(find_mysqld) || die "mariadbd/mysqld not found (is mariadb-server installed?)"
    installdb=$(command -v mariadb-install-db || command -v mysql_install_db) ||
        die "mariadb-install-db not found"

    rm -rf "$d"
    mkdir -p "$data" "$run" "$tmp"
    own mysql "$d"
    chmod 750 "$d"

    local user_opt=()
    ((is_root)) && user_opt=(--user=mysql)
    # Options shared by bootstrap and the server (InnoDB sizes must match).
    local common=(--innodb-log-file-size=32M --innodb-buffer-pool-size=128M
        --innodb-use-native-aio=0 --character-set-server=utf8mb4
        --collation-server=utf8mb4_unicode_ci --tmpdir="$tmp")
    # The primary writes a binary log (GTIDs; MIXED: bulk statements stay statements) for the
    # replica; the replica writes none and applies only what the replica test reads (its own
    # databases, the accounts, `triage`): replaying every suite's writes would cost the two
    # cores the rest of the tests run on.
    local repl=(--server-id="$server_id")
    if [[ -n "$primary_port" ]]; then
        repl+=(--skip-log-bin --skip-slave-start --relay-log="$d/relay/relay-bin"
            --replicate-wild-do-table='t_tst_replica_mysql%.%' --replicate-wild-do-table='mysql.%'
            --replicate-wild-do-table='triage.%')
        mkdir -p "$d/relay"
    else
        repl+=(--log-bin="$d/binlog/mysql-bin" --binlog-format=MIXED --log-bin-trust-function-creators=1
            --max-binlog-size=64M)
        mkdir -p "$d/binlog"
    fi
    own mysql "$d"

    # mariadb-install-db creates root@<hostname> (even with --skip-name-resolve,
    # which then warns about it on every connect) and anonymous users: drop them.
    cat >"$d/init.sql" <<'SQL'
DELETE FROM mysql.global_priv WHERE User = '' OR Host NOT IN ('localhost', '127.0.0.1', '::1');
DELETE FROM mysql.proxies_priv WHERE Host NOT IN ('localhost', '127.0.0.1', '::1');
SQL
    own mysql "$d/init.sql"

    log "MariaDB: mariadb-install-db in $data"
    # --no-defaults must be first; keeps /etc/mysql/*.cnf out of the picture.
    if ! (cd "$d" && "$installdb" --no-defaults "${user_opt[@]}" --datadir="$data" \
        --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
        --extra-file="$d/init.sql" "${common[@]}" --skip-log-bin) >"$d/install-db.log" 2>&1; then
        tail_log "$d/install-db.log"
        die "mariadb-install-db failed"
    fi

    log "$name: starting on 127.0.0.1:$port (time zone $my_tz)"
    (cd "$d" && exec setsid "$mysqld" --no-defaults "${user_opt[@]}" \
        --datadir="$data" --socket="$sock" --pid-file="$pidfile" \
        --port="$port" --bind-address=127.0.0.1 --skip-name-resolve \
        --default-time-zone="$my_tz" --max-connections=300 \
        --innodb-flush-log-at-trx-commit=2 --log-error="$errlog" \
        "${common[@]}" "${repl[@]}" </dev/null >>"$d/console.log" 2>&1) &
    local launcher=$! i started=0

    for ((i = 0; i < timeout_s * 4; i++)); do
        if [[ -S "$sock" ]] && my_client --connect-timeout=2 --socket="$sock" -uroot -e 'select 1' >/dev/null 2>&1; then
            started=1
            break
        fi
        if ! kill -0 "$launcher" 2>/dev/null && ! pid_is "$(cat "$pidfile" 2>/dev/null || true)" mariadbd mysqld; then
            break # died
        fi
        sleep 0.25
    done
    if ((!started)); then
        tail_log "$errlog"
        tail_log "$d/console.log"
        die "$name did not start"
    fi
    if [[ -n "$primary_port" ]]; then
        start_mysql_replication "$d" "$sock" "$port" "$primary_port"
        return 0
    fi

    if ! my_client --socket="$sock" -uroot >>"$d/setup.log" 2>&1 <<'SQL'; then
CREATE USER 'triage'@'127.0.0.1' IDENTIFIED BY 'triage';
CREATE USER 'triage'@'localhost' IDENTIFIED BY 'triage';
GRANT ALL PRIVILEGES ON *.* TO 'triage'@'127.0.0.1' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'triage'@'localhost' WITH GRANT OPTION;
CREATE DATABASE triage CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY 'triage';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1';
SQL
        tail_log "$d/setup.log"
        tail_log "$errlog"
        die "MariaDB: creating user/database failed"
    fi

    # Wait until the tests' path (TCP + password) works.
    wait_mysql_login "$port" "$errlog" "MariaDB: ready" "MariaDB does not accept TCP connections on 127.0.0.1:$port"
}

# Waits (bounded) until user triage logs in over TCP on PORT, then logs "<READY> (time_zone=…)";
# else shows the last error and ERRLOG's tail and dies with MESSAGE.
wait_mysql_login() { # wait_mysql_login PORT ERRLOG READY MESSAGE
    local port=$1 errlog=$2 i out=""
    for ((i = 0; i < timeout_s * 2; i++)); do
        if out=$(my_client --connect-timeout=3 --protocol=TCP -h 127.0.0.1 -P "$port" -utriage -ptriage \
            -N -B -e 'select @@global.time_zone' 2>&1); then
            log "$3 (time_zone=$out)"
            return 0
        fi
        sleep 0.5
    done
    log "$out"
    tail_log "$errlog"
    die "$4"
}

# The replica follows the primary from its first GTID: the test users and databases arrive by
# replication (the primary logged their creation). Waits until the replica runs and its copy
# of the `triage` user accepts a TCP login.
start_mysql_replication() { # start_mysql_replication DIR SOCKET PORT PRIMARY_PORT
    local d=$1 sock=$2 port=$3 pport=$4
    if ! my_client --socket="$sock" -uroot >>"$d/setup.log" 2>&1 <<SQL; then
SET GLOBAL gtid_slave_pos = '';
CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = $pport, MASTER_USER = 'repl',
  MASTER_PASSWORD = 'triage', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1;
START SLAVE;
SQL
        tail_log "$d/setup.log"
        die "MariaDB replica: CHANGE MASTER / START SLAVE failed"
    fi
    if ! (wait_mysql_login "$port" "$d/error.log" "MariaDB replica: ready, replicating 127.0.0.1:$pport" \
        "MariaDB replica: the replicated triage user cannot log in on 127.0.0.1:$port"); then
        my_client --socket="$sock" -uroot -e 'SHOW REPLICA STATUS\G' >&2 || true
        exit 1
    fi
}

# ---------------------------------------------------------------- env

write_env() { # write_env PGPORT MYPORT PGBOUNCERPORT STANDBYPORT MYREPLICAPORT
    cat >"$root/env.sh" <<EOF
export TRIAGE_TEST_PG_URL=postgresql://triage@127.0.0.1:$1/triage
export TRIAGE_TEST_PG_REPLICA_URL=postgresql://triage@127.0.0.1:$4/triage
export TRIAGE_TEST_MYSQL_URL=mysql://triage@127.0.0.1:$2/triage
export TRIAGE_TEST_MYSQL_REPLICA_URL=mysql://triage@127.0.0.1:$5/triage
export TRIAGE_TEST_PGBOUNCER_URL=postgresql://triage@127.0.0.1:$3/triage
export TRIAGE_TEST_PGBOUNCER_ADMIN_URL=postgresql://triage@127.0.0.1:$3/pgbouncer
export TRIAGE_TEST_PG_PASSWORD=triage
export TRIAGE_TEST_MYSQL_PASSWORD=triage
export TRIAGE_TEST_REQUIRE_ALL_BACKENDS=1
export QT_QPA_PLATFORM=offscreen
EOF
}

# ---------------------------------------------------------------- main

stopped_any=0
if [[ "$mode" == stop ]]; then
    for r in "${TRIAGE_TEST_ROOT:-}" "$repo/build/test-servers" "$fallback_root"; do
        [[ -n "$r" && -d "$r" ]] || continue
        stop_servers_at "$r"
        rm -f "$r/env.sh"
    done
    ((stopped_any)) || log "no test servers were running"
    exit 0
fi

bash "$repo/tests/install-deps.sh" >&2

resolve_root
# --servers-only again while its servers run: reuse them and keep their data (e.g. the
# benchmark's databases); `--stop` first for fresh ones.
if [[ "$mode" == servers && -f "$root/env.sh" ]] \
    && pid_is "$(head -n 1 "$root/pg/data/postmaster.pid" 2>/dev/null)" postgres \
    && pid_is "$(head -n 1 "$root/pg-standby/data/postmaster.pid" 2>/dev/null)" postgres \
    && pid_is "$(head -n 1 "$root/mysql/run/mysqld.pid" 2>/dev/null)" mariadbd mysqld \
    && pid_is "$(head -n 1 "$root/mysql-replica/run/mysqld.pid" 2>/dev/null)" mariadbd mysqld \
    && pid_is "$(head -n 1 "$root/pgbouncer/run/pgbouncer.pid" 2>/dev/null)" pgbouncer; then
    cat "$root/env.sh"
    log "servers already running (their data is kept); environment in $root/env.sh"
    log "fresh servers: bash tests/run-all.sh --stop, then --servers-only again"
    exit 0
fi
# Stale servers from an earlier run (e.g. --servers-only) in our dir.
stop_servers_at "$root"

# shellcheck disable=SC2317  # invoked via trap
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    stop_servers_at "$root"
    # keep the logs, drop the (large) data dirs
    rm -rf "$root/pg/data" "$root/pg-standby/data" "$root/mysql/data" "$root/mysql/tmp" "$root/mysql/binlog" \
        "$root/mysql-replica/data" "$root/mysql-replica/tmp" "$root/mysql-replica/relay" "$root/pgbouncer/userlist.txt" 2>/dev/null || true
    rm -f "$root/env.sh"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

pg_port=$(pick_port 55432 "${TRIAGE_TEST_PG_PORT:-}" PostgreSQL)
start_pg "$pg_port"
standby_port=$(pick_port 55532 "${TRIAGE_TEST_PG_REPLICA_PORT:-}" "PostgreSQL standby")
start_pg_standby "$standby_port" "$pg_port"
my_port=$(pick_port 53306 "${TRIAGE_TEST_MYSQL_PORT:-}" MariaDB)
start_mysql "$my_port"
my_replica_port=$(pick_port 53307 "${TRIAGE_TEST_MYSQL_REPLICA_PORT:-}" "MariaDB replica")
start_mysql "$my_replica_port" mysql-replica 2 "$my_port"
bouncer_port=$(pick_port 56432 "${TRIAGE_TEST_PGBOUNCER_PORT:-}" pgbouncer)
start_pgbouncer "$bouncer_port" "$pg_port"
write_env "$pg_port" "$my_port" "$bouncer_port" "$standby_port" "$my_replica_port"

if [[ "$mode" == servers ]]; then
    trap - EXIT INT TERM
    cat "$root/env.sh"
    log "servers running; environment also in $root/env.sh"
    log "use:  eval \"\$(bash tests/run-all.sh --servers-only)\"   or   source $root/env.sh"
    log "stop: bash tests/run-all.sh --stop"
    exit 0
fi

# shellcheck disable=SC1091
source "$root/env.sh"
export LANG="${LANG:-C.UTF-8}"

build_dir=${BUILD_DIR:-build}
[[ -f CMakeLists.txt ]] || die "no CMakeLists.txt in $repo"

if [[ -f "$build_dir/CMakeCache.txt" ]]; then
    log "reusing configured build dir $build_dir"
    # shellcheck disable=SC2086
    cmake -S . -B "$build_dir" ${CMAKE_ARGS:-}
else
    # shellcheck disable=SC2086
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-}
fi
cmake --build "$build_dir" -j "${TRIAGE_BUILD_JOBS:-2}"

set +e
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j "${TRIAGE_TEST_JOBS:-2}" "${ctest_args[@]}"
rc=$?
set -e
if ((rc == 0)); then log "all tests passed"; else log "ctest failed (exit $rc)"; fi
exit "$rc"
