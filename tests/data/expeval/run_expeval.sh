#!/bin/sh
# Run expeval (copied to $EXPEVAL, see ORIGIN) on both inputs over the option grid; writes
# expeval.tsv: input, options, measure, qid, value (as expeval prints it).
set -e
: "${EXPEVAL:=/tmp/expeval}"
printf 'input\toptions\tmeasure\tqid\tvalue\n' > expeval.tsv
for input in graded binary; do
  for model in "-u gerr -p 0.5 -r 0.5" "-u gerr -p 0.8 -r 0.3" "-u rbp -p 0.5" "-u rbp -p 0.9"; do
    for flags in "" "-C" "-U" "-C -U" "-B" "-B -C -U" "-G" "-G -C" "-G -U" "-G -C -U" "-G -B -U"; do
      opts=$(echo "$model $flags" | sed 's/ *$//')
      python3 "$EXPEVAL/expeval.py" $opts $input.qrels $input.run |
        awk -v i="$input" -v o="$opts" 'BEGIN{OFS="\t"} {print i, o, $1, $2, $3}' >> expeval.tsv
    done
  done
done
