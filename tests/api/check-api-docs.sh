#!/usr/bin/env bash
# docs/api.md against include/weir.h: every function the header declares
# has a "### `name`" section in api.md whose code shows the exact prototype
# (whitespace aside), every public type and options macro is documented,
# and api.md documents no function the header lacks. Fails listing what is
# missing or stale.
# Usage: check-api-docs.sh WEIR_H API_MD
set -euo pipefail
header=$1 doc=$2
fail=0

# One line of text without comments or preprocessor lines, whitespace
# collapsed and no space inside ( ).
flatten() {
    sed -E '/^[[:space:]]*#/{:c; /\\$/{N; bc}; d}' "$1" | tr '\n\t' '  ' \
        | sed -E 's:/\*([^*]|\*+[^*/])*\*+/: :g; s/ +/ /g; s/\( /(/g; s/ \)/)/g'
}
header_flat=$(flatten "$header")
doc_flat=$(tr '\n\t' '  ' < "$doc" | sed -E 's/ +/ /g; s/\( /(/g; s/ \)/)/g')

# Prototypes: from WEIR_API to the semicolon.
mapfile -t protos < <(printf '%s' "$header_flat" | grep -oE 'WEIR_API [^;]*;' \
                      | sed 's/^WEIR_API //')
for proto in "${protos[@]}"; do
    name=$(printf '%s' "$proto" | grep -oE 'weir_[a-z0-9_]+\(' | head -1 | tr -d '(')
    if ! grep -qE "^#+ \`$name\`" "$doc"; then
        echo "docs/api.md: no section for $name (add a '### \`$name\`' heading)"
        fail=1
    fi
    if ! printf '%s' "$doc_flat" | grep -qF -- "$proto"; then
        echo "docs/api.md: the prototype of $name differs from weir.h:"
        echo "    $proto"
        fail=1
    fi
done

# Types (typedef'd names) and the *_INIT / *_VERSION macros.
mapfile -t types < <(printf '%s' "$header_flat" \
    | grep -oE '\} weir_[a-z0-9_]+;|typedef struct weir_[a-z0-9_]+ weir_[a-z0-9_]+;|typedef [a-z_ ]+\(\*weir_[a-z0-9_]+\)' \
    | grep -oE 'weir_[a-z0-9_]+(;|\))$' | tr -d ';)' | sort -u)
# Macros and enum constants of the WEIR_ namespace (not the header's own
# guard and visibility macros).
mapfile -t macros < <({ grep -oE '^#define WEIR_[A-Z0-9_]+' "$header" | awk '{print $2}';
                        grep -oE '^[[:space:]]+WEIR_[A-Z0-9_]+ = ' "$header" | awk '{print $1}'; } \
                      | grep -vxE 'WEIR_API|WEIR_H' | sort -u)
for t in "${types[@]}" "${macros[@]}"; do
    if ! grep -qF "\`$t\`" "$doc"; then
        echo "docs/api.md: \`$t\` is not documented"
        fail=1
    fi
done

# Stale sections: names documented that the header does not declare.
known=" ${types[*]} "
while read -r name; do
    if ! printf '%s' "$header_flat" | grep -qE "WEIR_API [^;]*\b$name\(" &&
       [[ "$known" != *" $name "* ]]; then
        echo "docs/api.md: documents $name, which weir.h does not declare"
        fail=1
    fi
done < <(grep -oE '^#+ `weir_[a-z0-9_]+`' "$doc" | grep -oE 'weir_[a-z0-9_]+')

[ "$fail" = 0 ] && echo "check-api-docs: docs/api.md covers all ${#protos[@]} functions, ${#types[@]} types and ${#macros[@]} macros"
exit $fail
