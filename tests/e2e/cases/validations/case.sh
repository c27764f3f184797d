# Every graph validation, registration error and rejected clause: each
# folder under projects/ is a pipeline that triggers one. `weir dry-run`
# must exit 2 and print every line of the folder's `expected` file (error
# class and file:line:col) on stderr. A folder without a spec gets the
# default one below.

for dir in projects/*/; do
    name=$(basename "$dir")
    (
        cd "$dir"
        if [ ! -f spark-pipeline.yml ] && [ ! -f spark-pipeline.yaml ]; then
            printf 'name: %s\nstorage: storage\nlibraries:\n  - glob:\n      include: transformations/**\n' \
                "$name" >spark-pipeline.yml
        fi
        run_weir dry-run
        [ "$WEIR_EXIT" = 2 ] || e2e_fail "$name: expected exit 2, got $WEIR_EXIT"
        while IFS= read -r line; do
            [ -n "$line" ] || continue
            grep -qF -- "$line" "$WEIR_STDERR" ||
                e2e_fail "$name: stderr lacks: $line"
            e2e_pass
        done <expected
        # A dry run writes nothing.
        [ ! -e storage ] || e2e_fail "$name: dry-run created storage"
    )
done
