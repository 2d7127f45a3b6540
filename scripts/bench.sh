#!/usr/bin/env bash
# make bench: Go benchmarks (6 runs each, summarised by benchstat as medians)
# and the load tool's sweep: notch-web and the floor (a bare SSE broadcaster,
# notch-load floor-server) alternately at each size, the ratio of their
# medians, settings-triggered changes beside the durable write's own timing,
# the targets, and the idle host beside the floor (notch-load idle). Raw
# output goes to $BENCH_OUT (default bench/out, git-ignored); copy a run
# worth keeping to docs/bench/<date>/.
set -euo pipefail
out=${BENCH_OUT:-bench/out}
mkdir -p "$out"

echo "== go test -bench (count 6)"
go test -run '^$' -bench . -benchmem -count 6 ./state/ ./settings/ ./web/ | tee "$out/go-bench.txt"
echo
echo "== benchstat (medians, ± 95% confidence)"
go tool benchstat "$out/go-bench.txt" | tee "$out/benchstat.txt"
echo
echo "== notch-load (notch-web against the floor; settings-triggered changes; targets)"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
./bin/notch-load -out "$out/load.jsonl" ${LOAD_ARGS:-} | tee "$out/load.md"
echo
echo "== notch-load idle (live rows, two tabs, no change for 60 s: notch-web's CPU and wake-ups beside the floor's, bare and with the contract's beat)"
# Beside it, the hub's build (-tags notch_hub, bin/notch-web-hub): what
# nats-server's process sampler costs an idle notch-web that links it.
./bin/notch-load idle -out "$out/idle.jsonl" -also hub-build=bin/notch-web-hub ${IDLE_ARGS:-} | tee "$out/idle.md"
echo
echo "== notch-load hooks (what an agent waits for: the hook endpoint's reply, the command hook)"
./bin/notch-load hooks | tee "$out/hooks.md"
echo
echo "== many machines (host/mesh: a machine's change to the hub's board, 50 machines × 20 sessions × 5 hooks/s)"
go test -tags notch_hub -run '^$' -bench 'MachineToHub' -benchtime 300x -count 3 ./host/mesh/ | tee "$out/mesh-bench.txt"
go test -tags notch_hub -run '^$' -bench 'FiftyMachines' -benchtime 1x -count 3 ./host/mesh/ | tee -a "$out/mesh-bench.txt"
echo
echo "== notch-load mesh (a machine's change to 100 hub tabs beside the local path; idle RSS; 50 machines' fan-in)"
./bin/notch-load-hub mesh ${MESH_ARGS:-} | tee "$out/mesh.md"
