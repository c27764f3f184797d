/*
 * Terminal widths of UTF-8 text, for aligned tables and the progress line:
 * decode code points, give East Asian wide characters and emoji two columns
 * and combining marks none, and escape what a terminal cannot show in one
 * cell (newlines, tabs, other control characters, invalid bytes).
 */
#include <string.h>

#include "cli.h"

size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
    unsigned char b = s[0];
    size_t n;
    uint32_t v, min;

    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
        v = b & 0x1F;
        min = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        v = b & 0x0F;
        min = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        v = b & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

typedef struct range {
    uint32_t lo, hi;
} range;

static const range zero_width[] = {
    { 0x0300, 0x036F }, { 0x0483, 0x0489 }, { 0x0591, 0x05BD },
    { 0x0610, 0x061A }, { 0x064B, 0x065F }, { 0x0E31, 0x0E31 },
    { 0x0E34, 0x0E3A }, { 0x1AB0, 0x1AFF }, { 0x1DC0, 0x1DFF },
    { 0x200B, 0x200F }, { 0x202A, 0x202E }, { 0x2060, 0x2064 },
    { 0x20D0, 0x20FF }, { 0xFE00, 0xFE0F }, { 0xFE20, 0xFE2F },
    { 0xFEFF, 0xFEFF }, { 0xE0100, 0xE01EF },
};

/* East Asian Wide and Fullwidth blocks, and the emoji blocks. */
static const range wide[] = {
    { 0x1100, 0x115F },   { 0x231A, 0x231B },   { 0x2329, 0x232A },
    { 0x23E9, 0x23EC },   { 0x23F0, 0x23F0 },   { 0x23F3, 0x23F3 },
    { 0x25FD, 0x25FE },   { 0x2614, 0x2615 },   { 0x2648, 0x2653 },
    { 0x267F, 0x267F },   { 0x2693, 0x2693 },   { 0x26A1, 0x26A1 },
    { 0x26AA, 0x26AB },   { 0x26BD, 0x26BE },   { 0x26C4, 0x26C5 },
    { 0x26CE, 0x26CE },   { 0x26D4, 0x26D4 },   { 0x26EA, 0x26EA },
    { 0x26F2, 0x26F5 },   { 0x26FA, 0x26FD },   { 0x2705, 0x2705 },
    { 0x270A, 0x270B },   { 0x2728, 0x2728 },   { 0x274C, 0x274C },
    { 0x2753, 0x2757 },   { 0x2795, 0x2797 },   { 0x27B0, 0x27B0 },
    { 0x2B1B, 0x2B1C },   { 0x2B50, 0x2B50 },   { 0x2B55, 0x2B55 },
    { 0x2E80, 0x303E },   { 0x3041, 0x33FF },   { 0x3400, 0x4DBF },
    { 0x4E00, 0x9FFF },   { 0xA000, 0xA4CF },   { 0xA960, 0xA97F },
    { 0xAC00, 0xD7A3 },   { 0xF900, 0xFAFF },   { 0xFE10, 0xFE19 },
    { 0xFE30, 0xFE6F },   { 0xFF00, 0xFF60 },   { 0xFFE0, 0xFFE6 },
    { 0x16FE0, 0x18CFF }, { 0x1B000, 0x1B2FF }, { 0x1F004, 0x1F004 },
    { 0x1F0CF, 0x1F0CF }, { 0x1F18E, 0x1F18E }, { 0x1F191, 0x1F19A },
    { 0x1F200, 0x1F251 }, { 0x1F300, 0x1F64F }, { 0x1F680, 0x1F6FF },
    { 0x1F7E0, 0x1F7EB }, { 0x1F90C, 0x1F9FF }, { 0x1FA70, 0x1FAFF },
    { 0x20000, 0x2FFFD }, { 0x30000, 0x3FFFD },
};

static bool in_ranges(uint32_t cp, const range *r, size_t n)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < r[mid].lo)
            hi = mid;
        else if (cp > r[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

int codepoint_width(uint32_t cp)
{
    if (in_ranges(cp, zero_width, sizeof zero_width / sizeof zero_width[0]))
        return 0;
    if (in_ranges(cp, wide, sizeof wide / sizeof wide[0]))
        return 2;
    return 1;
}

/* How the character at p (decoded length n, code point cp) is shown when
 * it is not itself: an escape in buf; NULL otherwise. Sets *len to the
 * bytes the escape stands for. */
static const char *escape_for(const unsigned char *p, size_t n, uint32_t cp,
                              char buf[12], size_t *len)
{
    *len = n ? n : 1;
    if (n == 0) {
        snprintf(buf, 12, "\\x%02X", *p);
        return buf;
    }
    switch (cp) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
    }
    if (cp < 0x20 || cp == 0x7F) {
        snprintf(buf, 12, "\\x%02X", (unsigned)cp);
        return buf;
    }
    if (cp >= 0x80 && cp < 0xA0) {
        snprintf(buf, 12, "\\u%04X", (unsigned)cp);
        return buf;
    }
    return NULL;
}

size_t text_put(FILE *out, const char *s, size_t max_cols)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t used = 0;

    if (max_cols == 0)
        return 0;
    size_t total = max_cols == SIZE_MAX ? 0 : text_width(s);
    size_t limit = total > max_cols ? max_cols - 1 : max_cols; /* room for … */
    while (*p) {
        uint32_t cp = 0;
        char buf[12];
        size_t n = utf8_decode(p, &cp), len;
        const char *esc = escape_for(p, n, cp, buf, &len);
        size_t w = esc ? strlen(esc) : (size_t)codepoint_width(cp);
        if (used + w > limit)
            break;
        if (out) {
            if (esc)
                fputs(esc, out);
            else
                fwrite(p, 1, n, out);
        }
        used += w;
        p += len;
    }
    if (total > max_cols) {
        if (out)
            fputs("\xE2\x80\xA6", out); /* … */
        used++;
    }
    return used;
}

size_t text_width(const char *s)
{
    return text_put(NULL, s, SIZE_MAX);
}
