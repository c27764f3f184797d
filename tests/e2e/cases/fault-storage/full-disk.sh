# Run by case.sh (bash) inside a private mount namespace (unshare -m): the
# project's storage lives on a 3 MB tmpfs, which the second update fills;
# then the file system grows (the fault is removed) and the third update
# must complete. Writes exit codes and outputs to $E2E_OUT/full-*.
set +e
mount -t tmpfs -o size=3m tmpfs "$1" || exit 3
"$WEIR" run >"$E2E_OUT/full-1.out" 2>&1
echo $? >"$E2E_OUT/full-1.rc"
python3 "$2" orders landing 30000 --files 3 --start 1 --first-id 101
"$WEIR" run >"$E2E_OUT/full-2.out" 2>&1
echo $? >"$E2E_OUT/full-2.rc"
"$WEIR" query --format csv "SELECT count(*) AS n FROM bronze" >"$E2E_OUT/full-2.rows" 2>&1
mount -o remount,size=64m "$1"
"$WEIR" run >"$E2E_OUT/full-3.out" 2>&1
echo $? >"$E2E_OUT/full-3.rc"
"$WEIR" query --format csv "SELECT count(*) AS n, count(DISTINCT order_id) AS d FROM bronze" \
    >"$E2E_OUT/full-3.rows" 2>&1
exit 0
