#!/usr/bin/env bash
# tests/fuzz/make_corpus.sh TOOL DIR: writes the fuzzers' seed corpus with zkpipe-tool: valid
# porep, snapdeals, window_post and winning_post vanilla proofs (binary and JSON) of tiny and 2KiB
# sectors, in DIR/seeds/<kind>, and empty DIR/work/<kind> for what the fuzzers find (the PoSt
# ones through `zkpipe-tool proof-type TYPE vanilla`: the plugins beside the tool).
# DIR is emptied first. Thread-safety: one run per DIR.
set -euo pipefail
tool=$1
dir=$2
rm -rf "$dir"
kinds=(porep snapdeals window_post winning_post)
for kind in "${kinds[@]}"; do mkdir -p "$dir/seeds/$kind" "$dir/work/$kind"; done
mkdir -p "$dir/sectors"
t=(--threads 1)
for shape in tiny 2KiB; do
  data=$dir/sectors/$shape.sector
  key=$dir/sectors/$shape-key.sector
  "$tool" proof-type porep seal --shape "$shape" --seed 1 --out "$data" "${t[@]}"
  "$tool" proof-type porep seal --shape "$shape" --empty --seed 2 --out "$key" "${t[@]}"
  porep=(proof-type porep vanilla --sector "$data" --challenge-seed c "${t[@]}")
  "$tool" "${porep[@]}" --out "$dir/seeds/porep/$shape.bin"
  "$tool" "${porep[@]}" --json --out "$dir/seeds/porep/$shape.json"
  "$tool" "${porep[@]}" --partition 1 --out "$dir/seeds/porep/$shape-p1.bin"
  snap=(proof-type snapdeals update --sector "$key" --data-seed d "${t[@]}")
  "$tool" "${snap[@]}" --out "$dir/seeds/snapdeals/$shape.bin"
  "$tool" "${snap[@]}" --json --out "$dir/seeds/snapdeals/$shape.json"
  "$tool" "${snap[@]}" --partition 1 --out "$dir/seeds/snapdeals/$shape-p1.bin"
  # The data sector and the sector key are two sealed sectors: ids 1 and 2.
  for post in window_post winning_post; do
    v=(proof-type "$post" vanilla --sector "$data:1" --sector "$key:2"
       --randomness "$(printf '%064x' 7)")
    "$tool" "${v[@]}" --out "$dir/seeds/$post/$shape.bin" >/dev/null
    "$tool" "${v[@]}" --json --out "$dir/seeds/$post/$shape.json" >/dev/null
  done
done
counts=()
for kind in "${kinds[@]}"; do counts+=("$(ls "$dir/seeds/$kind" | wc -l) $kind"); done
echo "make_corpus: seeds in $dir/seeds: ${counts[*]}"
