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
kinds=(porep snapdeals window_post winning_post filecoin_keys filecoin_desc filecoin_post
       filecoin_porep filecoin_snapdeals)
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
# Filecoin's readers: polka-storage's keys and proofs (tests/filecoin/data), each key as a
# bellperson .vk too, and that .vk with five empty vectors as a .params; descriptions of each kind.
data=$(cd "$(dirname "$0")/../filecoin/data" && pwd)
keys=$dir/seeds/filecoin_keys
for name in polka_porep_2kib polka_post_2kib; do
  cp "$data/$name.vk.bin" "$data/$name.proof.bin" "$keys/"
  "$tool" filecoin key convert "$data/$name.vk.bin" "$keys/$name.vk" >/dev/null
  { cat "$keys/$name.vk"; head -c 20 /dev/zero; } > "$keys/$name.params"
done
desc=$dir/seeds/filecoin_desc
head -n 1 "$data/seal_regression_records-v16.json" > "$desc/regression-record.json"
cat > "$desc/post.json" <<'JSON'
{"registered_proof": "StackedDrgWindow2KiBV1_2", "randomness": "0101010101010101010101010101010101010101010101010101010101010101", "sectors": [{"sector_id": 77, "comm_r": "4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950"}]}
JSON
cat > "$desc/snapdeals.json" <<'JSON'
{"registered_proof": "StackedDrg8MiBV1", "comm_r_old": "4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950", "comm_d_new": "129c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421", "comm_r_new": "4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950"}
JSON
# Filecoin PoSt requests: samples of both kinds (2KiB sectors sealed with SDR), curio's vproof.
fpost=$dir/seeds/filecoin_post
"$tool" proof-type filecoin_window_post sample --preset StackedDrgWindow2KiBV1_2 --out "$fpost/window.json" >/dev/null
"$tool" proof-type filecoin_winning_post sample --preset StackedDrgWinning2KiBV1 --out "$fpost/winning.json" >/dev/null
cp "$data/curio/post.vproof" "$fpost/"
# Filecoin PoRep requests: a 2KiB sample (C1 output with prover and sector), and the bare C1 output.
fporep=$dir/seeds/filecoin_porep
"$tool" proof-type filecoin_porep sample --preset StackedDrg2KiBV1_1 --out "$fporep/request.json" >/dev/null
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["commit1_output"], open(sys.argv[2], "w"))' \
  "$fporep/request.json" "$fporep/c1.json"
# Filecoin SnapDeals requests: a 2KiB sample, and its partition proof as bytes.
fsnap=$dir/seeds/filecoin_snapdeals
"$tool" proof-type filecoin_snapdeals sample --preset StackedDrg2KiBV1 --out "$fsnap/request.json" >/dev/null
"$tool" proof-type filecoin_snapdeals sample --preset StackedDrg2KiBV1-Poseidon \
  --out "$fsnap/request-poseidon.json" >/dev/null
python3 -c 'import json,sys; open(sys.argv[2], "wb").write(bytes.fromhex(json.load(open(sys.argv[1]))["vanilla_proofs"][0]))' \
  "$fsnap/request.json" "$fsnap/partition.bin"
counts=()
for kind in "${kinds[@]}"; do counts+=("$(ls "$dir/seeds/$kind" | wc -l) $kind"); done
echo "make_corpus: seeds in $dir/seeds: ${counts[*]}"
