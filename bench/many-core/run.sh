#!/bin/bash
# The many-core run on a bare machine, from the folder pack.sh made: unpacks Node, the gateway
# and wrk (dpkg -x into a folder, never into /), writes the CPU description, then runs run.js.
# Results (results.md, results.json, lscpu.txt, run.log) go to $OUT (or ./many-core-out).
#   bash <packed folder>/run.sh          (WORKERS, LIMITED_WORKERS, CONNECTIONS, DURATION_S ... pass through)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK_DIR:-/tmp/many-core}
out=${OUT:-$PWD/many-core-out}
mkdir -p "$work/bin" "$work/wrk" "$out"
xz -dc "$here/node.xz" > "$work/bin/node" && chmod +x "$work/bin/node"
xz -dc "$here/gateway.tar.xz" | tar -C "$work" -xf -
for deb in "$here"/debs/*.deb; do dpkg -x "$deb" "$work/wrk"; done
# wrk alone gets the carried libraries: Node and its addons keep the system's.
cat > "$work/bin/wrk" <<WRAP
#!/bin/sh
LD_LIBRARY_PATH="$work/wrk/usr/lib/x86_64-linux-gnu" exec "$work/wrk/usr/bin/wrk" "\$@"
WRAP
chmod +x "$work/bin/wrk"
"$work/bin/node" --version
"$work/bin/wrk" -v 2>&1 | head -1 || true
{ lscpu; echo; grep -m1 'model name' /proc/cpuinfo; nproc; free -m; uname -r; } > "$out/lscpu.txt" 2>&1 || true
ulimit -n 65536 2>/dev/null || true
cd "$work/gateway"
# The runner (and its /proc sampling) sits on wrk's CPUs, which run.js picks as 4-7 on a 16-CPU machine without hyper-threads.
pin=""
if [ "$(nproc)" -ge 16 ]; then pin="taskset -c 4-7"; fi
PATH="$work/bin:$PATH" OUT_DIR="$out" WRK="$work/bin/wrk" $pin "$work/bin/node" bench/many-core/run.js 2>&1 | tee "$out/run.log"
