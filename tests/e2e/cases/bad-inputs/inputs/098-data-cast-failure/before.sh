# A good update first; then the bad input lands.
mkdir -p landing && cp -R good/. landing/
"$WEIR" run >/dev/null 2>&1 || e2e_fail "$name: the good update failed"
cp -R bad/. landing/
