"$WEIR" run >/dev/null 2>&1 || e2e_fail "$name: the good update failed"
