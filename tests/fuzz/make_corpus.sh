#!/usr/bin/env bash
# tests/fuzz/make_corpus.sh TOOL DIR: writes the fuzzers' seed corpus with zkpipe-tool: valid
# porep and snapdeals vanilla proofs (binary and JSON) of tiny and 2KiB sectors, in
# DIR/seeds/{porep,snapdeals}, and empty DIR/work/{porep,snapdeals} for what the fuzzers find.
# DIR is emptied first. Thread-safety: one run per DIR.
set -euo pipefail
tool=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"/seeds/{porep,snapdeals} "$dir"/work/{porep,snapdeals} "$dir/sectors"
t=(--threads 1)
for shape in tiny 2KiB; do
  data=$dir/sectors/$shape.sector
  key=$dir/sectors/$shape-key.sector
  "$tool" porep seal --shape "$shape" --seed 1 --out "$data" "${t[@]}"
  "$tool" porep seal --shape "$shape" --empty --seed 2 --out "$key" "${t[@]}"
  porep=(porep vanilla --sector "$data" --challenge-seed c "${t[@]}")
  "$tool" "${porep[@]}" --out "$dir/seeds/porep/$shape.bin"
  "$tool" "${porep[@]}" --json --out "$dir/seeds/porep/$shape.json"
  "$tool" "${porep[@]}" --partition 1 --out "$dir/seeds/porep/$shape-p1.bin"
  snap=(snapdeals update --sector "$key" --data-seed d "${t[@]}")
  "$tool" "${snap[@]}" --out "$dir/seeds/snapdeals/$shape.bin"
  "$tool" "${snap[@]}" --json --out "$dir/seeds/snapdeals/$shape.json"
  "$tool" "${snap[@]}" --partition 1 --out "$dir/seeds/snapdeals/$shape-p1.bin"
done
echo "make_corpus: $(ls "$dir"/seeds/porep | wc -l) porep and" \
     "$(ls "$dir"/seeds/snapdeals | wc -l) snapdeals seeds in $dir/seeds"
