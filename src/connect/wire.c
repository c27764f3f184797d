/*
 * A guard in front of the generated protobuf decoder, which recurses once
 * per nested message and has no depth limit of its own: measure the
 * nesting of a request without decoding it.
 *
 * Without the schema a length-delimited field may be a message or bytes, so
 * each one is entered tentatively; if its contents stop parsing as fields,
 * it was bytes and the scan resumes after it. Every byte is read once.
 */
#include "connect/internal.h"

#include <stdlib.h>

static bool varint(const uint8_t *p, size_t end, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*pos >= end)
            return false;
        uint8_t b = p[(*pos)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

bool weir__wire_too_deep(const uint8_t *p, size_t n, unsigned max_depth)
{
    size_t cap = 64, depth = 0;
    size_t *ends = malloc(cap * sizeof *ends);
    if (!ends)
        return true; /* cannot check: refuse */
    ends[0] = n;
    size_t pos = 0;
    bool deep = false;
    for (;;) {
        size_t end = ends[depth];
        if (pos == end) {
            if (depth == 0)
                break;
            depth--;
            continue;
        }
        uint64_t tag, v;
        bool ok = varint(p, end, &pos, &tag) && (tag >> 3) != 0;
        if (ok) {
            switch (tag & 7) {
            case 0:
                ok = varint(p, end, &pos, &v);
                break;
            case 1:
                ok = end - pos >= 8;
                pos += ok ? 8 : 0;
                break;
            case 5:
                ok = end - pos >= 4;
                pos += ok ? 4 : 0;
                break;
            case 2:
                ok = varint(p, end, &pos, &v) && v <= end - pos;
                if (ok && v > 0) {
                    if (depth + 1 > max_depth) {
                        deep = true;
                        goto out;
                    }
                    if (depth + 1 >= cap) {
                        size_t *e = realloc(ends, 2 * cap * sizeof *ends);
                        if (!e) {
                            deep = true;
                            goto out;
                        }
                        ends = e;
                        cap *= 2;
                    }
                    ends[++depth] = pos + (size_t)v;
                }
                break;
            default:
                ok = false;
            }
        }
        if (!ok) {
            if (depth == 0)
                break; /* malformed: the decoder will say so */
            pos = ends[depth--]; /* that field held bytes, not a message */
        }
    }
out:
    free(ends);
    return deep;
}
