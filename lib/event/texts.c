/*
 * texts.c: the metadata texts of a trace: kernel symbols (/proc/kallsyms
 * text), printk formats (printk_formats: '0xADDR : "fmt"') and comms
 * (saved_cmdlines: "pid comm"), as lookup tables; and the shape each of
 * their lines must have (below), which tdat-verify and --salvage hold
 * them to.
 *
 * Lookups reproduce trace-cmd's: entries are kept in reverse order of
 * registration, sorted stably, and searched by the same binary search, so
 * that duplicate addresses or pids resolve to the same entry.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tdat-int.h"
#include "event-int.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define COMMCACHE (sizeof(((struct tdat_events *)0)->commcache) / \
	sizeof(struct commcache))

#define SYMCACHE TDAT_SYMCACHE

static const char *sym_search(const struct tdat_events *,
    unsigned long long, unsigned long long *);

/* Call fn on each non-empty line of text. */
static int
each_line(const char *text, size_t len, struct tdat_events *s,
    int (*fn)(struct tdat_events *, char *))
{
	char *buf, *p, *nl;
	int r = 0;

	if ((buf = malloc(len + 1)) == NULL)
		return -1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (p = buf; *p; p = nl) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		else
			nl = p + strlen(p);
		if (*p == '\0')
			continue;
		if ((r = fn(s, p)) != 0)
			break;
	}
	free(buf);
	return r < 0 ? -1 : 0;
}

/* Hex digits, their value plus one (0: not a digit). */
static const unsigned char hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/*
 * Eight hex digits at p into *v, if they all are: each byte b (below
 * 0x80) plus 0x80 - c has its top bit set when b >= c, and no carry
 * leaves it.  On other hosts than little-endian ones, 0.
 */
static inline int
hex8(const char *p, unsigned long long *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t hi = 0x8080808080808080ull, one = 0x0101010101010101ull;
	uint64_t x, lc, digit, alpha;

	memcpy(&x, p, 8);
	if (x & hi)
		return 0;
	lc = x | 0x2020202020202020ull;
	digit = (x + (0x80 - '0') * one) & ~(x + (0x80 - '9' - 1) * one);
	alpha = (lc + (0x80 - 'a') * one) & ~(lc + (0x80 - 'f' - 1) * one);
	if (((digit | alpha) & hi) != hi)
		return 0;
	/* nibbles, the first digit in the top byte, then packed */
	x = (x & 0x0f0f0f0f0f0f0f0full) + 9 * ((x >> 6) & one);
	x = __builtin_bswap64(x);
	x = (x | x >> 4) & 0x00ff00ff00ff00ffull;
	x = (x | x >> 8) & 0x0000ffff0000ffffull;
	*v = (x | x >> 16) & 0xffffffffull;
	return 1;
#else
	(void)p;
	(void)v;
	return 0;
#endif
}

#if defined(__SSE2__)
/* Whether the 16 bytes of x are all hex digits (hex8()'s test: signed
 * bytes, those of 0x80 and above fail both ranges). */
static inline int
hex16_ok(__m128i x)
{
	__m128i l = _mm_or_si128(x, _mm_set1_epi8(0x20));
	__m128i d = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
	    _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
	__m128i a = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)),
	    _mm_cmplt_epi8(l, _mm_set1_epi8('f' + 1)));

	return _mm_movemask_epi8(_mm_or_si128(d, a)) == 0xffff;
}
#endif

/*
 * Sixteen hex digits at p into *v, if they all are (hex8()'s test): in
 * SSE2 all at once, each byte's nibble the low four bits plus 9 for a
 * letter (bit 6), the pairs of them joined in 16-bit lanes, packed to
 * the 8 bytes of the number, first digits first.  Else hex8() twice.
 */
static inline int
hex16v(const char *p, unsigned long long *v)
{
#if defined(__SSE2__)
	const __m128i one = _mm_set1_epi8(1);
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i n, t;
	uint64_t w;

	if (!hex16_ok(x))
		return 0;
	/* bit 6 of each byte to bit 0: the lanes' shift brings the high
	 * byte's bits only to bits 2 and up of the low one */
	t = _mm_and_si128(_mm_srli_epi16(x, 6), one);
	n = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)),
	    _mm_add_epi8(_mm_slli_epi16(t, 3), t));
	n = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(n,
	    _mm_set1_epi16(0xff)), 4), _mm_srli_epi16(n, 8));
	w = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(n, n));
	*v = __builtin_bswap64(w);
	return 1;
#else
	unsigned long long a, b;

	if (!hex8(p, &a) || !hex8(p + 8, &b))
		return 0;
	*v = a << 32 | b;
	return 1;
#endif
}

#if !defined(__SSE2__)
/* Whether the 16 bytes of x and y are all hex digits (hex8()'s test);
 * 0 on other hosts than little-endian ones. */
static inline int
hex16(uint64_t x, uint64_t y)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t hi = 0x8080808080808080ull, one = 0x0101010101010101ull;
	uint64_t lx = x | 0x2020202020202020ull, ly = y | 0x2020202020202020ull;

	if ((x | y) & hi)
		return 0;
	return ((((x + (0x80 - '0') * one) & ~(x + (0x80 - '9' - 1) * one)) |
	    ((lx + (0x80 - 'a') * one) & ~(lx + (0x80 - 'f' - 1) * one))) &
	    (((y + (0x80 - '0') * one) & ~(y + (0x80 - '9' - 1) * one)) |
	    ((ly + (0x80 - 'a') * one) & ~(ly + (0x80 - 'f' - 1) * one))) &
	    hi) == hi;
#else
	(void)x;
	(void)y;
	return 0;
#endif
}
#endif

/* isspace() in the C locale, without the call. */
static inline int
space(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/*
 * One kallsyms line, "ADDR T NAME[\t[MOD]]", parsed in place without
 * copying: the name and module come back as spans of the text.  Returns
 * 1 for a symbol, 0 for a line that holds none (absolute symbols, $
 * local labels), -1 for a line it cannot read.
 */
struct symline {
	unsigned long long addr;
	const char *name, *mod;
	size_t nlen, mlen;
};

static int
kallsyms_parse(const char *p, const char *end, struct symline *l)
{
	unsigned long long a, b;
	int n = 0, h;
	char type;

	l->addr = 0;
	l->mod = NULL;
	l->mlen = 0;
	while (p < end && space((unsigned char)*p))
		p++;
	if (end - p > 16 && hex8(p, &a) && hex8(p + 8, &b)) {
		/* the usual 16 digits, eight at a time */
		l->addr = a << 32 | b;
		p += 16;
		n = 16;
	}
	while (p < end && n < 16 && (h = hex1[(unsigned char)*p]) != 0) {
		l->addr = l->addr << 4 | (unsigned)(h - 1);
		p++;
		n++;
	}
	if (n == 0)
		return -1;
	while (p < end && space((unsigned char)*p))
		p++;
	if (p == end)
		return -1;
	type = *p++;
	while (p < end && space((unsigned char)*p))
		p++;
	if (p == end)
		return -1;
	l->name = p;
	/* Spaces are all below '!': eight characters at a time while none
	 * is (the test is exact for "some byte below 0x21"), then one. */
	while (end - p >= 8) {
		uint64_t x;

		memcpy(&x, p, 8);
		if ((x - 0x2121212121212121ull) & ~x & 0x8080808080808080ull)
			break;
		p += 8;
	}
	while (p < end && ((unsigned char)*p > ' ' ||
	    !space((unsigned char)*p)))
		p++;
	l->nlen = (size_t)(p - l->name);
	if (end - p >= 2 && p[0] == '\t' && p[1] == '[') {
		const char *m = p + 2;

		for (p = m; p < end && !space((unsigned char)*p); p++)
			;
		if (p > m) {
			l->mod = m;
			l->mlen = (size_t)(p - m) - 1;	/* drop the ']' */
		}
	}
	if (l->name[0] == '$' || type == 'A' || type == 'a')
		return 0;
	return 1;
}

/* Grow the name arena of s to hold need bytes. */
static int
arena_grow(struct tdat_events *s, size_t *cap, size_t need)
{
	size_t n = *cap + *cap / 2;
	char *a;

	if (n < need)
		n = need;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	if (n < need || (a = s->arenas[0] ? realloc(s->arenas[0], n) :
	    tdat_malloc_big(n)) == NULL)
		return -1;
	s->arenas[0] = a;
	*cap = n;
	return 0;
}

/* Grow the symbols of s to hold need (and the sentinel). */
static int
syms_grow(struct tdat_events *s, size_t need)
{
	size_t n = s->capsym + s->capsym / 2;
	struct symbol *v;

	if (n < need + 1)
		n = need + 1;
	if (n >= UINT32_MAX || (v = s->sym ? realloc(s->sym, n * sizeof(*v)) :
	    tdat_malloc_big(n * sizeof(*v))) == NULL)
		return -1;
	s->sym = v;
	s->capsym = n;
	return 0;
}

/*
 * The usual line, "<16 hex digits> T name\n" or "... name\t[mod]\n",
 * read at once: 1 with *l filled and *pp past the line, 0 for a symbol
 * line kallsyms_parse() skips, -1 for any other line (kallsyms_parse()
 * reads it then).  Names end at the first byte up to ' ', tested eight
 * at a time; one that is not a newline or the tab before a module is
 * left to kallsyms_parse().
 */
static inline int
fast_symline(const char **pp, const char *end, struct symline *l)
{
	const char *p = *pp, *q, *nl;
	unsigned long long a;
	uint64_t x;

	if (end - p < 21 || p[16] != ' ' || p[18] != ' ' ||
	    (unsigned char)p[17] <= ' ' || (unsigned char)p[19] <= ' ' ||
	    !hex16v(p, &a))
		return -1;
	q = p + 19;
	while (end - q >= 8) {
		memcpy(&x, q, 8);
		x = (x - 0x2121212121212121ull) & ~x & 0x8080808080808080ull;
		if (x) {
			/* the lowest flag is exact (hex8 said little-endian) */
			q += __builtin_ctzll(x) >> 3;
			break;
		}
		q += 8;
	}
	while (q < end && (unsigned char)*q > ' ')
		q++;
	if (q == end || *q == '\n')
		nl = q;
	else if (*q == '\t' && end - q >= 2 && q[1] == '[') {
		if ((nl = memchr(q, '\n', (size_t)(end - q))) == NULL)
			nl = end;
	} else
		return -1;
	*pp = nl < end ? nl + 1 : end;
	if (p[19] == '$' || p[17] == 'A' || p[17] == 'a')
		return 0;
	l->addr = a;
	l->name = p + 19;
	l->nlen = (size_t)(q - l->name);
	return 1;
}

/* The next symbol line after *pp; 0 at the end or at an unreadable line. */
static int
next_symline(const char **pp, const char *end, struct symline *l)
{
	const char *p = *pp, *nl;
	int r;

	while (p < end) {
		if ((r = fast_symline(&p, end, l)) > 0) {
			*pp = p;
			return 1;
		}
		if (r == 0)
			continue;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		r = kallsyms_parse(p, nl, l);
		p = nl < end ? nl + 1 : end;
		if (r < 0)
			break;
		if (r > 0) {
			*pp = p;
			return 1;
		}
	}
	*pp = end;
	return 0;
}

/* Copy a name of n bytes at src to dst, with its NUL; 8 bytes at a
 * time when both have room (the text past the name, the arena past n). */
static inline void
name_copy(char *dst, const char *src, size_t n, const char *send)
{
	size_t i;

	if ((size_t)(send - src) >= n + 8) {
		for (i = 0; i < n; i += 8)
			memcpy(dst + i, src + i, 8);
	} else
		memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * The symbols of a kallsyms text, in one pass: the table starts at one
 * symbol per 40 bytes, the names at 5/8 of the text (a kernel's are 54%
 * of it: the names grown from half were copied, 512 page faults for 2
 * MB), both grow if there are more and are cut to size at the end, so
 * that a large kallsyms (tens of MB on some kernels) costs no more than
 * its names and 12 bytes a symbol.  Both start on 2 MB pages
 * (tdat_malloc_big()).  Module names are not kept: nothing trace-cmd
 * prints shows them.  Given up (-1, nothing added) once *stop is set,
 * looked at every 4096 symbols.
 */
static int
add_kallsyms(struct tdat_events *s, const char *text, size_t len,
    const atomic_int *stop)
{
	const char *p, *end = text + len;
	struct symline l;
	size_t used, cap, n;
	char **arenas;
	struct symbol *v;
	int rc = 0;

	if (s->narenas == 0) {
		if ((arenas = malloc(sizeof(*arenas))) == NULL)
			return -1;
		arenas[0] = NULL;
		s->arenas = arenas;
		s->narenas = 1;
		s->arena_len = 0;
	}
	if (syms_grow(s, s->nsym + len / 40 + 16) < 0)
		return -1;
	used = cap = s->arena_len;
	if (arena_grow(s, &cap, used + len / 8 * 5 + 64) < 0)
		return -1;
	for (p = text, n = s->nsym; next_symline(&p, end, &l); n++) {
		/* names are offsets of 32 bits, and a set gets one arena */
		if ((stop != NULL && (n & 4095) == 0 &&
		    atomic_load_explicit(stop, memory_order_relaxed)) ||
		    (n + 1 >= s->capsym && syms_grow(s, n + 1) < 0) ||
		    (cap - used < l.nlen + 8 &&
		    arena_grow(s, &cap, used + l.nlen + 8) < 0)) {
			rc = -1;
			break;
		}
		v = &s->sym[n];
		v->addr = l.addr;
		v->name = (uint32_t)used;
		name_copy(s->arenas[0] + used, l.name, l.nlen, end);
		used += l.nlen + 1;
	}
	if (rc == 0 && n > s->nsym) {
		s->nsym = n;
		s->arena_len = used;
		s->sym_sorted = 0;
		if (s->symcache)
			memset(s->symcache, 0, SYMCACHE * sizeof(*s->symcache));
	}
	/* Cut to size (a failure keeps the larger block). */
	if ((v = realloc(s->sym, (s->nsym + 1) * sizeof(*v))) != NULL) {
		s->sym = v;
		s->capsym = s->nsym + 1;
	}
	if (s->arena_len == 0) {
		free(s->arenas[0]);
		s->arenas[0] = NULL;
	} else if ((p = realloc(s->arenas[0], s->arena_len)) != NULL)
		s->arenas[0] = (char *)p;
	return rc;
}

int
tdat_events_add_kallsyms(struct tdat_events *s, const char *text, size_t len)
{
	return add_kallsyms(s, text, len, NULL);
}

static int
printk_line(struct tdat_events *s, char *line)
{
	struct printkfmt *v;
	char *colon, *fmt, *p;
	size_t n;

	if ((colon = strchr(line, ':')) == NULL)
		return 0;
	*colon = '\0';
	fmt = colon + 1;
	if (*fmt)
		fmt++;		/* the space after ':' */
	if (s->nprintk == s->capprintk) {
		size_t cap = s->capprintk ? s->capprintk * 2 : 256;

		if ((v = realloc(s->printk, cap * sizeof(*v))) == NULL)
			return -1;
		s->printk = v;
		s->capprintk = cap;
	}
	v = &s->printk[s->nprintk];
	v->addr = strtoull(line, NULL, 16);
	v->seq = s->nprintk;
	if (fmt[0] == '"')
		fmt++;
	if ((v->fmt = strdup(fmt)) == NULL)
		return -1;
	n = strlen(v->fmt);
	if (n > 0) {
		p = v->fmt + n - 1;
		if (*p == '"')
			*p = '\0';
		if (p - v->fmt >= 2) {
			p -= 2;
			if (strcmp(p, "\\n") == 0)
				*p = '\0';
		}
	}
	s->nprintk++;
	s->printk_sorted = 0;
	return 0;
}

int
tdat_events_add_printk(struct tdat_events *s, const char *text, size_t len)
{
	return each_line(text, len, s, printk_line);
}

static int
comm_line(struct tdat_events *s, char *line)
{
	struct comm *v;
	char *end;
	long pid;

	pid = strtol(line, &end, 10);
	if (end == line)
		return 1;
	while (isspace((unsigned char)*end))
		end++;
	if (*end == '\0')
		return 1;
	if (s->ncomm == s->capcomm) {
		size_t cap = s->capcomm ? s->capcomm * 2 : 256;

		if ((v = realloc(s->comm, cap * sizeof(*v))) == NULL)
			return -1;
		s->comm = v;
		s->capcomm = cap;
	}
	v = &s->comm[s->ncomm];
	v->pid = (int)pid;
	v->seq = s->ncomm;
	if ((v->comm = strdup(end)) == NULL)
		return -1;
	s->ncomm++;
	s->comm_sorted = 0;
	s->commcache[(unsigned)pid % COMMCACHE].comm = NULL;
	return 0;
}

int
tdat_events_add_cmdlines(struct tdat_events *s, const char *text, size_t len)
{
	return each_line(text, len, s, comm_line);
}

/* Symbols by address, newest registration (the later name) first among
 * equal ones: the keys are unique, so any sort gives the order trace-cmd's
 * stable sort does. */
static inline int
sym_before(const struct symbol *x, const struct symbol *y)
{
	if (x->addr != y->addr)
		return x->addr < y->addr;
	return x->name > y->name;
}

static void
sym_swap(struct symbol *a, struct symbol *b)
{
	struct symbol t = *a;

	*a = *b;
	*b = t;
}

/* Sort in place (no copy of a table of hundreds of thousands): a
 * quicksort on the median of three, the smaller side first, insertion
 * sort for short runs. */
static void
sym_qsort(struct symbol *v, size_t n)
{
	size_t i, j, mid;
	struct symbol t;

	while (n > 16) {
		mid = n / 2;
		if (sym_before(&v[mid], &v[0]))
			sym_swap(&v[mid], &v[0]);
		if (sym_before(&v[n - 1], &v[mid])) {
			sym_swap(&v[n - 1], &v[mid]);
			if (sym_before(&v[mid], &v[0]))
				sym_swap(&v[mid], &v[0]);
		}
		t = v[mid];
		i = 0;
		j = n - 1;
		for (;;) {
			while (sym_before(&v[i], &t))
				i++;
			while (sym_before(&t, &v[j]))
				j--;
			if (i >= j)
				break;
			sym_swap(&v[i], &v[j]);
			i++;
			j--;
		}
		/* v[0..j] <= t <= v[j+1..n-1] */
		if (j + 1 < n - (j + 1)) {
			sym_qsort(v, j + 1);
			v += j + 1;
			n -= j + 1;
		} else {
			sym_qsort(v + j + 1, n - (j + 1));
			n = j + 1;
		}
	}
	for (i = 1; i < n; i++) {
		t = v[i];
		for (j = i; j > 0 && sym_before(&t, &v[j - 1]); j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

/*
 * A kallsyms is nearly sorted: the core kernel's symbols in order, a few
 * hundred out of it (modules, sections placed apart).  Those are taken
 * out (the others keep their order), sorted alone and merged back from
 * the end; when there are many, the whole is sorted.
 */
static void
sym_sort(struct symbol *v, size_t n)
{
	struct symbol *out;
	size_t i, a, nout = 0, cap = n / 16;

	for (i = 1; i < n; i++)
		if (sym_before(&v[i], &v[i - 1]))
			break;
	if (i == n)
		return;
	if ((out = malloc((cap ? cap : 1) * sizeof(*out))) == NULL) {
		sym_qsort(v, n);
		return;
	}
	for (a = i; i < n; i++) {
		if (!sym_before(&v[i], &v[a - 1]))
			v[a++] = v[i];
		else if (nout < cap)
			out[nout++] = v[i];
		else
			break;
	}
	if (i < n) {
		/* too many: put them back after the others, sort all */
		memmove(&v[a + nout], &v[i], (n - i) * sizeof(*v));
		memcpy(&v[a], out, nout * sizeof(*v));
		free(out);
		sym_qsort(v, n);
		return;
	}
	sym_qsort(out, nout);
	/* v[0..a-1] and out[0..nout-1] in order, merged from the end */
	for (i = n; nout > 0; ) {
		if (a > 0 && sym_before(&out[nout - 1], &v[a - 1]))
			v[--i] = v[--a];
		else
			v[--i] = out[--nout];
	}
	free(out);
}

static int
printk_cmp(const void *a, const void *b)
{
	const struct printkfmt *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

static int
comm_cmp(const void *a, const void *b)
{
	const struct comm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

void
tdat_syms_sort(struct tdat_events *s)
{
	if (!s->sym_sorted && s->nsym) {
		sym_sort(s->sym, s->nsym);
		/* The sentinel after the last symbol. */
		memset(&s->sym[s->nsym], 0, sizeof(s->sym[0]));
	}
	s->sym_sorted = 1;
	if (!s->printk_sorted && s->nprintk)
		qsort(s->printk, s->nprintk, sizeof(*s->printk), printk_cmp);
	s->printk_sorted = 1;
	if (!s->comm_sorted && s->ncomm) {
		qsort(s->comm, s->ncomm, sizeof(*s->comm), comm_cmp);
		memset(s->commcache, 0, sizeof(s->commcache));
	}
	s->comm_sorted = 1;
}

/*
 * The kallsyms text tdat_events_load_mode() set aside, read on the first
 * symbol lookup.  Without memory the set has no symbols (addresses print
 * as numbers), as a trace without kallsyms.
 */
/* Sharing: the first set to need the symbols reads them for all. */
static pthread_mutex_t share_mu = PTHREAD_MUTEX_INITIALIZER;

/* s's symbol table is from's (sorted), its text read. */
static void
syms_from(struct tdat_events *s, const struct tdat_events *from)
{
	s->sym = from->sym;
	s->nsym = from->nsym;
	s->capsym = from->capsym;
	s->arenas = from->arenas;
	s->narenas = from->narenas;
	s->arena_len = from->arena_len;
	s->sym_sorted = 1;
	s->ktext = NULL;
	s->syms_loaded = 1;
}

static void
borrow_syms(struct tdat_events *s, const struct tdat_events *from)
{
	s->share_from = NULL;
	s->ktext = NULL;
	s->syms_loaded = 1;
	if (from->nsym == 0 || !from->sym_sorted)
		return;		/* none, as from has none */
	syms_from(s, from);
	s->syms_shared = 1;
}

/* w's kallsyms text read into its table and sorted (ktext NULL from
 * then on); given up as add_kallsyms() is when *stop is set. */
static void
syms_read(struct tdat_events *w, const atomic_int *stop)
{
	const char *text = w->ktext;

	w->ktext = NULL;
	w->syms_loaded = 1;
	if (add_kallsyms(w, text, w->klen, stop) == 0 && w->nsym) {
		sym_sort(w->sym, w->nsym);
		memset(&w->sym[w->nsym], 0, sizeof(w->sym[0]));
		w->sym_sorted = 1;
	}
}

/* w takes the table its file's format builds as the kallsyms load
 * (struct tdat_file ksyms_late): 1 if so, 0 to read the text itself. */
static int
take_late(struct tdat_events *w)
{
	struct tdat_file *f = w->file;
	struct tdat_events *t;

	w->ksyms_late = 0;
	if (f == NULL || f->ksyms_late == NULL)
		return 0;
	t = f->ksyms_late(f);
	if (tdat_syms_take(w, t))
		return 1;
	tdat_events_free(t);
	return 0;
}

void
tdat_syms_need(const struct tdat_events *s)
{
	struct tdat_events *w = (struct tdat_events *)s;
	const struct tdat_events *from = w->share_from;

	if (w->ktext == NULL)
		return;
	if (from != NULL) {
		pthread_mutex_lock(&share_mu);
		tdat_syms_need(from);
		pthread_mutex_unlock(&share_mu);
		borrow_syms(w, from);
		return;
	}
	if (w->ksyms_late && take_late(w))
		return;
	syms_read(w, NULL);
}

struct tdat_events *
tdat_syms_build(const char *text, size_t len, const atomic_int *stop)
{
	struct tdat_events *t;

	if ((t = tdat_events_new(8, 0)) == NULL)
		return NULL;
	t->ktext = text;
	t->klen = len;
	syms_read(t, stop);
	if (t->nsym == 0) {	/* none read: no memory, none there, stopped */
		tdat_events_free(t);
		return NULL;
	}
	return t;
}

/*
 * s takes the symbol table built of its kallsyms text as they loaded
 * (tdat_syms_build(), struct tdat_file ksyms_late) rather than reading them
 * at its first lookup: the same table, already made.  1 if so; the table
 * t then holds nothing and is freed.  Not when it is of another text.
 */
int
tdat_syms_take(struct tdat_events *s, struct tdat_events *t)
{
	if (t == NULL || s->ktext == NULL || s->share_from != NULL ||
	    s->nsym || s->narenas || t->klen != s->klen || !t->sym_sorted)
		return 0;
	syms_from(s, t);
	t->sym = NULL;
	t->arenas = NULL;
	t->nsym = t->capsym = 0;
	t->narenas = 0;
	tdat_events_free(t);
	return 1;
}

/*
 * Set s looks its symbols up in from's table, not in one of its own: the
 * formatters of lib/merge/par.c, one a thread, share one table of
 * kallsyms.  The first of them to look a symbol up reads from's (under a
 * lock), as late as one set alone would; from then on the table is only
 * read, by every thread, and outlives s.  from must be of the same file,
 * and its own thread must not look symbols up while the others may.
 * Nothing is shared when s has read its symbols already or has none.
 */
void
tdat_events_share_syms(struct tdat_events *s, const struct tdat_events *from)
{
	if (s->ktext == NULL || s->nsym || s->narenas ||
	    from->share_from != NULL)
		return;
	s->share_from = from;
}

int
tdat_events_syms_loaded(const struct tdat_events *s)
{
	return s->syms_loaded;
}

/* A hex number of the n bytes at p (no "0x"); -1 when not one. */
static int
lb_hex(const char *p, size_t n, unsigned long long *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < n; i++) {
		int d = p[i] >= '0' && p[i] <= '9' ? p[i] - '0' :
		    p[i] >= 'a' && p[i] <= 'f' ? p[i] - 'a' + 10 : -1;

		if (d < 0 || i >= 16)
			return -1;
		*v = *v << 4 | (unsigned long long)d;
	}
	return n ? 0 : -1;
}

/* The address this boot loaded module name at (the file's modules
 * section, /proc/modules: "NAME SIZE REFS USED_BY STATE 0xADDR"), or 0. */
static unsigned long long
lb_module_now(const struct tdat_file *f, const char *name, size_t nlen)
{
	const char *p = (const char *)f->modules.p, *end, *nl, *a;
	unsigned long long v;

	if (p == NULL)
		return 0;
	end = p + strnlen(p, f->modules.len);
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((size_t)(nl - p) <= nlen || memcmp(p, name, nlen) != 0 ||
		    p[nlen] != ' ')
			continue;
		for (a = nl; a > p && a[-1] != ' '; a--)
			;
		if (nl - a > 2 && a[0] == '0' && a[1] == 'x' &&
		    lb_hex(a + 2, (size_t)(nl - a - 2), &v) == 0)
			return v;
		if (nl - a > 2 && a[0] == '(')	/* taints after the address */
			continue;
	}
	return 0;
}

static int
lbmod_cmp(const void *a, const void *b)
{
	const struct lbmod *x = a, *y = b;

	return x->old < y->old ? -1 : x->old > y->old;
}

/*
 * trace-cmd 3.4 (libtraceevent 1.9) reads a persistent ring buffer's
 * LAST_BOOT_INFO option, "BUFFER:ADDR\t[kernel]" then "ADDR\tMODULE" a
 * line: where the kernel (its _text) and the modules lay in the boot the
 * events were recorded in.  Their addresses are moved by as much as the
 * kernel (this boot's _text) or the module (its address in the modules
 * section) has moved since, before the symbol is looked up.
 */
static void
lb_setup(struct tdat_events *w)
{
	const struct tdat_file *f = w->file;
	const char *p = NULL, *end, *nl, *tab, *c;
	unsigned long long now = 0, v;
	struct lbmod *m;
	size_t i, n = 0;

	w->lb_state = 1;
	if (f == NULL || w->tc != TDAT_TC_34)
		return;
	for (i = 0; i < f->nopt && p == NULL; i++)
		if (f->opt[i].id == TDAT_OPT_LAST_BOOT_INFO && f->opt[i].data) {
			p = (const char *)f->opt[i].data;
			end = p + strnlen(p, f->opt[i].size);
		}
	for (i = 0; p != NULL && i < w->nsym && !now; i++)
		if (strcmp(w->arenas[0] + w->sym[i].name, "_text") == 0)
			now = w->sym[i].addr;
	if (p == NULL || now == 0)
		return;
	if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL ||
	    (c = memchr(p, ':', (size_t)(nl - p))) == NULL ||
	    (tab = memchr(c, '\t', (size_t)(nl - c))) == NULL ||
	    lb_hex(c + 1, (size_t)(tab - c - 1), &w->lb_kernel) < 0)
		return;
	w->lb_delta = now - w->lb_kernel;
	w->lb_kend = ~0ULL;
	for (p = nl + 1; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((tab = memchr(p, '\t', (size_t)(nl - p))) == NULL ||
		    lb_hex(p, (size_t)(tab - p), &v) < 0 || n >= 65536)
			continue;
		if ((m = realloc(w->lbmod, (n + 1) * sizeof(*m))) == NULL)
			break;
		w->lbmod = m;
		m[n].old = v;
		m[n++].cur = lb_module_now(f, tab + 1, (size_t)(nl - tab - 1));
		if (v > w->lb_kernel && v < w->lb_kend)
			w->lb_kend = v;
	}
	w->nlbmod = n;
	if (n)
		qsort(w->lbmod, n, sizeof(*w->lbmod), lbmod_cmp);
	w->lb_state = 2;
}

/* addr moved to this boot, by *delta (added). */
static unsigned long long
lb_map(struct tdat_events *w, unsigned long long addr,
    unsigned long long *delta)
{
	size_t i;

	*delta = 0;
	if (w->lb_state == 0)
		lb_setup(w);
	if (w->lb_state != 2 || addr < w->lb_kernel)
		return addr;
	if (addr < w->lb_kend) {
		*delta = w->lb_delta;
		return addr + *delta;
	}
	for (i = w->nlbmod; i > 0; i--)
		if (w->lbmod[i - 1].old <= addr) {
			if (w->lbmod[i - 1].cur == 0)
				return addr;
			*delta = w->lbmod[i - 1].cur - w->lbmod[i - 1].old;
			return addr + *delta;
		}
	return addr;
}

const char *
tdat_events_sym_len(const struct tdat_events *s, unsigned long long addr,
    unsigned long long *start, size_t *len)
{
	struct tdat_events *w = (struct tdat_events *)s;
	struct symcache *c;
	unsigned long long delta = 0;
	const char *name;

	if (w->ktext)
		tdat_syms_need(s);
	if (w->lb_state != 1)
		addr = lb_map(w, addr, &delta);
	if (delta != 0 || (w->symcache == NULL &&
	    (w->symcache = calloc(SYMCACHE, sizeof(*c))) == NULL)) {
		name = sym_search(s, addr, start);
		if (name && start)
			*start -= delta;	/* in the addresses of the record */
		*len = name ? strlen(name) : 0;
		return name;
	}
	c = tdat_symcache_at(w->symcache, addr);
	if (c->name == NULL || c->addr != addr) {
		c->name = sym_search(s, addr, &c->start);
		c->addr = addr;
		if (c->name == NULL) {
			c->name = "";
			c->start = 0;
		}
		c->len = strlen(c->name);
	}
	if (start && c->name[0])
		*start = c->start;
	*len = c->len;
	return c->name[0] ? c->name : NULL;
}

const char *
tdat_events_sym(const struct tdat_events *s, unsigned long long addr,
    unsigned long long *start)
{
	size_t len;

	return tdat_events_sym_len(s, addr, start, &len);
}

static const char *
sym_search(const struct tdat_events *s, unsigned long long addr,
    unsigned long long *start)
{
	size_t lo = 0, hi = s->nsym, mid;
	const struct symbol *e;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		e = &s->sym[mid];
		if (addr == e->addr || (addr > e->addr && addr < e[1].addr)) {
			if (start)
				*start = e->addr;
			return s->arenas[0] + e->name;
		}
		if (addr < e->addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const char *
tdat_events_printk(const struct tdat_events *s, unsigned long long addr)
{
	size_t lo = 0, hi = s->nprintk, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s->printk[mid].addr == addr)
			return s->printk[mid].fmt;
		if (addr < s->printk[mid].addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static const char *
comm_search(const struct tdat_events *s, int pid)
{
	size_t lo = 0, hi = s->ncomm, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s->comm[mid].pid == pid)
			return s->comm[mid].comm;
		if (pid < s->comm[mid].pid)
			hi = mid;
		else
			lo = mid + 1;
	}
	return "<...>";
}

const char *
tdat_events_comm(const struct tdat_events *s, int pid)
{
	struct tdat_events *w = (struct tdat_events *)s;
	struct commcache *c;

	if (pid == 0)
		return "<idle>";
	c = &w->commcache[(unsigned)pid % COMMCACHE];
	if (c->comm == NULL || c->pid != pid) {
		c->comm = comm_search(s, pid);
		c->pid = pid;
	}
	return c->comm;
}

int
tdat_events_set_comm(struct tdat_events *s, int pid, const char *comm)
{
	size_t lo = 0, hi = s->ncomm, mid;
	struct comm *v;
	char *c;

	if (pid == 0)
		return 0;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s->comm[mid].pid == pid)
			return 0;
		if (pid < s->comm[mid].pid)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (s->ncomm == s->capcomm) {
		size_t cap = s->capcomm ? s->capcomm * 2 : 256;

		if ((v = realloc(s->comm, cap * sizeof(*v))) == NULL)
			return -1;
		s->comm = v;
		s->capcomm = cap;
	}
	if ((c = strdup(comm)) == NULL)
		return -1;
	memmove(&s->comm[lo + 1], &s->comm[lo],
	    (s->ncomm - lo) * sizeof(s->comm[0]));
	s->commcache[(unsigned)pid % COMMCACHE].comm = NULL;
	s->comm[lo].pid = pid;
	s->comm[lo].comm = c;
	s->comm[lo].seq = s->ncomm;
	s->ncomm++;
	return 0;
}

/* ------------------------------------------------------------------ */
/*
 * The shape of each line of the three texts as the kernel writes them:
 * kallsyms "ADDR T NAME[\t[MOD]]" (printable ASCII; the type is any such
 * character: a kernel wrote "3" for long Rust names), printk formats
 * '0xADDR : "FMT"', saved cmdlines "PID COMM".  trace-cmd reads whatever
 * is there; a line of another shape is damage (a flipped bit, a zeroed
 * block), which tdat-verify reports and tdat-cat --salvage drops.
 */

/* Printable ASCII but space. */
static int
graph(unsigned char c)
{
	return c > ' ' && c < 0x7f;
}

/* Whether the 8 bytes at p are all graph(): none is below '!' (exact,
 * as in kallsyms_parse), none 0x7f or above (a carry out of 0xff comes
 * from a byte whose own top bit is set). */
static inline int
graph8(const char *p)
{
	const uint64_t one = 0x0101010101010101ull, hi = one << 7;
	uint64_t x;

	memcpy(&x, p, 8);
	return (((x - 0x21 * one) & ~x) | x | (x + one)) & hi ? 0 : 1;
}

/* How many of the n bytes at p are hex digits (base 16) or digits. */
static size_t
digits(const char *p, size_t n, int base)
{
	size_t i = 0;

	while (i < n && (base == 16 ? hex1[(unsigned char)p[i]] != 0 :
	    p[i] >= '0' && p[i] <= '9'))
		i++;
	return i;
}

static const char *
kallsyms_bad(const char *p, size_t n)
{
	size_t i, s;

	unsigned long long a;

	i = n > 16 && hex8(p, &a) && hex8(p + 8, &a) ? 16 : 0;
	if ((i += digits(p + i, n - i, 16)) == 0)
		return "no address";
	if (i > 16)
		return "an address of more than 16 digits";
	if (i + 4 > n || p[i] != ' ' || !graph((unsigned char)p[i + 1]) ||
	    p[i + 2] != ' ')
		return "no symbol type between spaces after the address";
	for (s = i += 3; n - i >= 8 && graph8(p + i); i += 8)
		;
	for (; i < n && graph((unsigned char)p[i]); i++)
		;
	if (i == s)
		return "no symbol name";
	if (i == n)
		return NULL;
	if (p[i] == '\t' && i + 1 < n && p[i + 1] == '[') {
		for (s = i += 2; i < n && graph((unsigned char)p[i]); i++)
			;
		if (i == n && i - s >= 2 && p[i - 1] == ']')
			return NULL;
		return "a damaged module name";
	}
	return p[i] == ' ' ? "a space after the symbol name" :
	    "a byte that is not printable ASCII";
}

static const char *
printk_bad(const char *p, size_t n)
{
	size_t i;

	if (n < 3 || p[0] != '0' || p[1] != 'x' || (i = digits(p + 2, n - 2,
	    16)) == 0)
		return "no 0x address";
	if (i > 16)
		return "an address of more than 16 digits";
	i += 2;
	if (n - i < 5 || memcmp(p + i, " : \"", 4) != 0)
		return "no ' : \"' after the address";
	if (p[n - 1] != '"')
		return "no closing quote";
	if (memchr(p, '\0', n) != NULL)
		return "a NUL byte";
	return NULL;
}

static const char *
cmdline_bad(const char *p, size_t n)
{
	size_t i;

	if ((i = digits(p, n, 10)) == 0)
		return "no pid";
	if (i > 10)
		return "a pid of more than 10 digits";
	if (i == n || p[i] != ' ')
		return "no space after the pid";
	if (memchr(p, '\0', n) != NULL)
		return "a NUL byte";
	return NULL;
}

const char *
tdat_text_name(enum tdat_text kind)
{
	static const char *const name[] = { "KALLSYMS", "PRINTK", "CMDLINES" };

	return name[kind];
}

const char *
tdat_text_line_bad(enum tdat_text kind, const char *p, size_t n)
{
	if (n == 0)
		return "an empty line";
	switch (kind) {
	case TDAT_TEXT_KALLSYMS:
		return kallsyms_bad(p, n);
	case TDAT_TEXT_PRINTK:
		return printk_bad(p, n);
	default:
		return cmdline_bad(p, n);
	}
}

/* The first TDAT_TEXT_PREVIEW bytes of a line, printable: a byte that
 * is not printable ASCII, a quote or a backslash as \xNN. */
static void
text_preview(char *dst, const char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c;
	size_t i;

	for (i = 0; i < n && i < TDAT_TEXT_PREVIEW; i++) {
		c = (unsigned char)p[i];
		if (c >= ' ' && c < 0x7f && c != '"' && c != '\\') {
			*dst++ = (char)c;
			continue;
		}
		*dst++ = '\\';
		*dst++ = 'x';
		*dst++ = hex[c >> 4];
		*dst++ = hex[c & 15];
	}
	*dst = '\0';
}

/* Note line (n bytes at byte at of the text) in r when it is bad; 1 if. */
static int
text_line(enum tdat_text kind, const char *p, size_t n, uint64_t at,
    struct tdat_text_check *r)
{
	const char *why;

	r->lines++;
	if ((why = tdat_text_line_bad(kind, p, n)) == NULL)
		return 0;
	if (r->bad++ == 0) {
		r->first_line = r->lines;
		r->first_at = at;
		r->why = why;
		text_preview(r->first, p, n);
	}
	return 1;
}

#if defined(__SSE2__)
/* The bytes of the 16 at p that are not graph(), a bit each (signed
 * bytes: those of 0x80 and above are below ' '). */
static inline unsigned
nongraph16(const char *p)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i g = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(' ')),
	    _mm_cmplt_epi8(x, _mm_set1_epi8(0x7f)));

	return (unsigned)_mm_movemask_epi8(g) ^ 0xffffu;
}

/* Whether the 16 bytes at p are all hex digits (hex8()'s test). */
static inline int
hex16_sse(const char *p)
{
	return hex16_ok(_mm_loadu_si128((const __m128i *)(const void *)p));
}
#endif

/*
 * The length of the kallsyms line at p (room bytes to the text's end)
 * when it is of the usual shape, "ADDR T NAME" with 16 digits, maybe
 * "\t[MOD]" after, which kallsyms_bad() passes: read in one go, its end
 * found as the name's, not looked for first.  0 for any other line, which
 * text_walk() then reads as any other text's.
 */
static inline __attribute__((always_inline)) size_t
kallsyms_good(const char *p, size_t room)
{
	const uint64_t one = 0x0101010101010101ull, hi = one << 7;
	uint64_t x, m;
	size_t i, s;

	if (room < 20 || p[16] != ' ' || !graph((unsigned char)p[17]) ||
	    p[18] != ' ')
		return 0;
#if defined(__SSE2__)
	/* 16 hex digits, then the name 16 bytes at a time, in SSE2 */
	if (!hex16_sse(p))
		return 0;
	for (s = i = 19; room - i >= 16; i += 16)
		if ((x = nongraph16(p + i)) != 0) {
			i += (size_t)__builtin_ctz((unsigned)x);
			goto named;
		}
#else
	uint64_t y;

	/* 16 hex digits: as hex8()'s test, both words at once */
	memcpy(&x, p, 8);
	memcpy(&y, p + 8, 8);
	if (!hex16(x, y))
		return 0;
	/* the name: 16 then 8 bytes at a time, to the first that is not
	 * graph() (the lowest byte graph8()'s test marks is exact) */
	for (s = i = 19; room - i >= 16; i += 16) {
		memcpy(&x, p + i, 8);
		memcpy(&y, p + i + 8, 8);
		m = (((x - 0x21 * one) & ~x) | x | (x + one)) & hi;
		y = (((y - 0x21 * one) & ~y) | y | (y + one)) & hi;
		if ((m | y) != 0) {
			i += m ? (size_t)__builtin_ctzll(m) >> 3 :
			    8 + ((size_t)__builtin_ctzll(y) >> 3);
			goto named;
		}
	}
#endif
	for (; room - i >= 8; i += 8) {
		memcpy(&x, p + i, 8);
		if ((m = (((x - 0x21 * one) & ~x) | x | (x + one)) & hi) != 0) {
			i += (size_t)__builtin_ctzll(m) >> 3;
			break;
		}
	}
	if (room - i < 8)
		for (; i < room && graph((unsigned char)p[i]); i++)
			;
named:
	if (i == s)
		return 0;
	if (i + 1 < room && p[i] == '\t' && p[i + 1] == '[') {
		for (s = i += 2; i < room && graph((unsigned char)p[i]); i++)
			;
		if (i - s < 2 || p[i - 1] != ']')
			return 0;
	}
	return i == room || p[i] == '\n' ? i : 0;
}

/*
 * Each line of a text (the last may lack its newline) against its shape;
 * with drop, the bad lines are taken out of the text in place.  Returns
 * the text's length after.
 */
static size_t
text_walk(enum tdat_text kind, char *text, size_t len, int drop,
    struct tdat_text_check *r)
{
	size_t at = 0, out = 0, n, next;
	const char *nl;

	memset(r, 0, sizeof(*r));
	while (at < len) {
		/* a run of good kallsyms lines, only counted */
		if (kind == TDAT_TEXT_KALLSYMS && !drop) {
			while ((n = kallsyms_good(text + at, len - at)) > 0) {
				r->lines++;
				if ((at += n + 1) >= len)
					return len;
			}
		} else if (kind == TDAT_TEXT_KALLSYMS &&
		    (n = kallsyms_good(text + at, len - at)) > 0) {
			/* a good line: counted, kept */
			r->lines++;
			next = at + n < len ? at + n + 1 : len;
			if (drop && out != at)
				memmove(text + out, text + at, next - at);
			out += next - at;
			at = next;
			continue;
		}
		nl = memchr(text + at, '\n', len - at);
		n = nl ? (size_t)(nl - (text + at)) : len - at;
		next = nl ? at + n + 1 : len;
		if (!text_line(kind, text + at, n, at, r) && drop) {
			if (out != at)
				memmove(text + out, text + at, next - at);
			out += next - at;
		}
		at = next;
	}
	return drop ? out : len;
}

void
tdat_text_check(enum tdat_text kind, const char *text, size_t len,
    struct tdat_text_check *r)
{
	text_walk(kind, (char *)(uintptr_t)text, len, 0, r);
}

void
tdat_text_check_add(struct tdat_text_check *r,
    const struct tdat_text_check *next, uint64_t at)
{
	if (next->bad && r->bad == 0) {
		r->first_line = r->lines + next->first_line;
		r->first_at = at + next->first_at;
		r->why = next->why;
		memcpy(r->first, next->first, sizeof(r->first));
	}
	r->lines += next->lines;
	r->bad += next->bad;
}

size_t
tdat_text_drop_bad(enum tdat_text kind, char *text, size_t len,
    struct tdat_text_check *r)
{
	return text_walk(kind, text, len, 1, r);
}

const char *
tdat_text_say(char *buf, size_t n, enum tdat_text kind, int name,
    const struct tdat_text_check *r, int exact)
{
	char more[64] = "";

	if (r->bad > 1)
		snprintf(more, sizeof(more), "; %llu of %llu lines are",
		    (unsigned long long)r->bad, (unsigned long long)r->lines);
	snprintf(buf, n, "%s%sline %llu%s is damaged (%s): \"%s\"%s",
	    name ? tdat_text_name(kind) : "", name ? ": " : "",
	    (unsigned long long)r->first_line, exact ? "" :
	    " of the decompressed text", r->why, r->first, more);
	return buf;
}

/*
 * Writers (trace.dat, LTT): an input whose kallsyms, printk formats or
 * cmdlines hold a line not of the kernel's shape would be copied into an
 * output tdat-verify refuses, so it is refused, as a damaged page is (a
 * salvage drops those lines when it opens the file).  Its first damaged
 * line is named, at its offset in a trace.dat (an LTT directory's texts
 * have none: tdat-verify names the info file's).
 */
int
tdat_text_refuse(const struct tdat_file *f, struct tdat_err *e)
{
	return tdat_text_refuse_known(f, NULL, e);
}

int
tdat_text_refuse_known(const struct tdat_file *f,
    const struct tdat_text_check *kallsyms, struct tdat_err *e)
{
	const struct tdat_blob *b[] = { &f->kallsyms, &f->printk,
	    &f->cmdlines };
	struct tdat_text_check r;
	char msg[TDAT_TEXT_SAY];
	uint64_t at;
	int i, known, exact = 1;

	for (i = 0; i < 3; i++) {
		if (b[i]->p == NULL || b[i]->len == 0 || b[i]->len > SIZE_MAX)
			continue;
		if (i == TDAT_TEXT_KALLSYMS && kallsyms != NULL)
			r = *kallsyms;
		else
			tdat_text_check((enum tdat_text)i,
			    (const char *)b[i]->p, (size_t)b[i]->len, &r);
		if (r.bad == 0)
			continue;
		/* where it lies in the file, when the format tells */
		known = b[i]->off && f->format && f->format->text_where;
		at = known ? f->format->text_where(f, b[i], r.first_at,
		    &exact) : 0;
		tdat_text_say(msg, sizeof(msg), (enum tdat_text)i, 1, &r,
		    exact);
		if (!known)
			return tdat_fail_nooff(e, TDAT_ECORRUPT, "%s", msg);
		return tdat_fail(e, TDAT_ECORRUPT, at, "%s", msg);
	}
	return 0;
}
