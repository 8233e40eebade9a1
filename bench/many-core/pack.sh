#!/bin/sh
# Packs what the many-core run needs onto a machine with no Node, no registry and no network:
# Node 22 (the npm `node` package's binary), the built gateway with its production dependencies
# (pruned of what the server never loads), this folder and bench/lib, and Debian's wrk .debs.
#   npm run build && sh bench/many-core/pack.sh <destination folder>
# On the other machine: bash <destination>/run.sh (see run.sh).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$(mkdir -p "$1" && cd "$1" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

xz -T0 -6 -c "$root/node_modules/node/bin/node" > "$dest/node.xz"

mkdir -p "$stage/gateway/bench"
cp -r "$root/dist" "$root/assets" "$root/package.json" "$root/package-lock.json" "$stage/gateway/"
cp -r "$root/bench/lib" "$root/bench/many-core" "$stage/gateway/bench/"
# The shipped node flags and environment are read off the entry point's shebang (bench/lib/setup.js).
mkdir -p "$stage/gateway/src" && cp "$root/src/cli.ts" "$stage/gateway/src/"
(cd "$stage/gateway" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
m="$stage/gateway/node_modules"
# better-sqlite3 ships prebuilt binaries; keep linux-x64 (glibc) and drop its C sources.
find "$m/better-sqlite3/prebuilds" -type f ! -name 'linux-x64.node' -delete
rm -rf "$m/better-sqlite3/deps" "$m/better-sqlite3/src" "$m/gpt-tokenizer/src"
find "$m" -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.md' \) -delete
find "$m" -type d \( -name test -o -name tests -o -name __tests__ -o -name docs -o -name example -o -name examples \) -prune -exec rm -rf {} +
find "$stage/gateway/dist" -name '*.map' -delete
tar -C "$stage" -cf - gateway | xz -T0 -6 > "$dest/gateway.tar.xz"

mkdir -p "$dest/debs"
(cd "$dest/debs" && apt-get download wrk libluajit-5.1-2 libluajit-5.1-common libssl3 2>/dev/null)
cp "$root/bench/many-core/run.sh" "$dest/run.sh"
du -sh "$dest"/*
