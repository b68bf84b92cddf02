/*
 * short.c - readable kernel names: the virtual field short.
 *
 * A profiler writes a kernel's whole C++ signature (return type, template
 * arguments, parameter list: hundreds of characters) or a generated GEMM
 * name (Tensile's Cijk_... with forty tuning tokens).  People read the
 * qualified name with the functors it is instantiated with (what tells
 * PyTorch's elementwise kernels apart), and for a GEMM its family and
 * macro tile.  The
 * shortener only drops text; it never invents a name, and a name that is
 * not a signature (Memcpy DtoD (Device -> Device)) is left as it is.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "mct_private.h"

#ifndef HAVE_DEMANGLE
/* Without a C++ runtime's demangler mangled names pass through. */
char *
mct_demangle(const char *mangled)
{
	(void)mangled;
	return NULL;
}
#endif

static int
is_ident(int c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
}

/*
 * Tensile's Cijk_<A>_<B>_..._MT<m>x<n>x<k>_...: the family (the first
 * three tokens) and the macro tile.  Returns -1 if it is not one.
 */
static int
gemm(const char *s, size_t n, struct mct_buf *out)
{
	size_t i, fam = 0, tok, tlen;
	int under = 0;

	if (n < 5 || strncmp(s, "Cijk_", 5) != 0)
		return -1;
	for (i = 0; i < n && under < 3; i++)
		if (s[i] == '_' && ++under == 3)
			break;
	fam = i;
	mct_buf_add(out, s, fam);
	for (tok = fam; tok < n; tok += tlen + 1) {
		const char *t = s + tok + 1;

		if (tok + 1 >= n)
			break;
		tlen = strcspn(t, "_");
		if (tok + 1 + tlen > n)
			tlen = n - tok - 1;
		if (tlen > 2 && t[0] == 'M' && t[1] == 'T' &&
		    isdigit((unsigned char)t[2])) {
			mct_buf_adds(out, "_\xe2\x80\xa6_");	/* "_…_" */
			mct_buf_add(out, t, tlen);
			break;
		}
	}
	return 0;
}

/* Does the name look like a C++ signature (not prose with a paren)? */
static int
signature(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == ':' && i + 1 < n && s[i + 1] == ':')
			return 1;
		if ((s[i] == '<' || s[i] == '(') && i > 0 && is_ident(s[i - 1]))
			return 1;
	}
	return 0;
}

/* Is the word at the end of b (a top-level token) a qualifier to drop? */
static int
qualifier(const char *w, size_t n)
{
	static const char *q[] = { "const", "volatile", "noexcept", "&",
	    "&&", "__global__", "static", "inline", NULL };
	int i;

	for (i = 0; q[i]; i++)
		if (strlen(q[i]) == n && memcmp(q[i], w, n) == 0)
			return 1;
	return 0;
}

/*
 * The signature without what is inside <>, () and [] (any depth): a
 * stack of the open brackets, so that the > of a -> in a parameter list
 * closes nothing.  "(anonymous namespace)::" leaves an empty "::" that
 * is closed up; the return type is the words before the last one.
 */
static void
strip(const char *s, size_t n, struct mct_buf *out)
{
	char open[256];
	size_t i, depth = 0, start = out->len, w, end, last;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '<' || c == '(' || c == '[') {
			/* operator(), operator< ...: keep the word "operator" */
			if (depth < sizeof(open))
				open[depth] = c;
			depth++;
			continue;
		}
		if (depth > 0) {
			char o = depth <= sizeof(open) ? open[depth - 1] : 0;

			if ((c == '>' && o == '<') || (c == ')' && o == '(') ||
			    (c == ']' && o == '['))
				depth--;
			continue;
		}
		if (c == ':' && i + 1 < n && s[i + 1] == ':' &&
		    out->len >= start + 2 && out->p[out->len - 1] == ':' &&
		    out->p[out->len - 2] == ':') {
			i++;	/* "::::" after an anonymous namespace */
			continue;
		}
		mct_buf_addc(out, c);
	}
	/* trim, then keep the last word that is not a qualifier */
	end = out->len;
	for (;;) {
		while (end > start && out->p[end - 1] == ' ')
			end--;
		for (w = end; w > start && out->p[w - 1] != ' '; w--)
			;
		if (w == start || !qualifier(out->p + w, end - w))
			break;
		end = w;
	}
	last = w;
	if (last > start && last < end) {
		memmove(out->p + start, out->p + last, end - last);
		end = start + (end - last);
	}
	/* a name that began with :: (a lone qualifier dropped) */
	if (end - start > 2 && out->p[start] == ':' && out->p[start + 1] == ':') {
		memmove(out->p + start, out->p + start + 2, end - start - 2);
		end -= 2;
	}
	out->len = end;
}

/* Does the word name a functor: *Functor*, *functor*, *Ops (MeanOps)? */
static int
functor(const char *w, size_t n)
{
	size_t i;

	for (i = 0; i + 7 <= n; i++)
		if (memcmp(w + i, "Functor", 7) == 0 ||
		    memcmp(w + i, "functor", 7) == 0)
			return 1;
	return n > 3 && memcmp(w + n - 3, "Ops", 3) == 0;
}

/*
 * The functors among the template arguments of the kernel (the last
 * top-level <...> before its parameter list), each once, in the order
 * they come: <FillFunctor>, <BinaryFunctor, MulFunctor>.  They are what
 * tells apart PyTorch's elementwise and reduce kernels, whose names are
 * otherwise the same.
 */
static void
functors(const char *s, size_t n, struct mct_buf *out)
{
	size_t i, depth = 0, lt = 0, gt = 0, w, k, start = out->len;

	for (i = 0; i < n; i++) {
		if (s[i] == '<' && depth++ == 0)
			lt = i;
		else if (s[i] == '>' && depth > 0 && --depth == 0)
			gt = i;
		else if (s[i] == '(' && depth == 0 && i > 0 &&
		    (is_ident(s[i - 1]) || s[i - 1] == '>'))
			break;		/* the parameter list */
	}
	for (i = lt + 1; i < gt; i = w) {
		for (w = i; w < gt && (isalnum((unsigned char)s[w]) ||
		    s[w] == '_'); w++)
			;
		if (w == i) {
			w++;
			continue;
		}
		if (!functor(s + i, w - i))
			continue;
		/* each once */
		for (k = start + 1; k + (w - i) <= out->len; k++)
			if (memcmp(out->p + k, s + i, w - i) == 0 &&
			    (k + (w - i) == out->len || out->p[k + (w - i)] == ',') &&
			    (out->p[k - 1] == '<' || out->p[k - 1] == ' '))
				break;
		if (k + (w - i) <= out->len)
			continue;
		mct_buf_adds(out, out->len == start ? "<" : ", ");
		mct_buf_add(out, s + i, w - i);
	}
	if (out->len > start)
		mct_buf_addc(out, '>');
}

/*
 * The qualified name at the head of an Itanium-mangled name the demangler
 * refused (a profiler cut it: _ZN2ck6device12_GLOBAL__N_16kernelI...),
 * read by hand: _Z, N and its qualifiers, then each <length><identifier>
 * until anything else (template arguments, a substitution, the end).  A
 * cut identifier keeps what is left of it; _GLOBAL__N_* is the anonymous
 * namespace.  NULL if not even one identifier is there.
 */
static char *
nested(const char *s, size_t n)
{
	struct mct_buf b = { 0 };
	size_t i = 2, len, have;
	int nest = 0, k;

	if (i < n && s[i] == 'N')
		for (nest = 1, i++; i < n && strchr("rVKRO", s[i]) != NULL; i++)
			;
	if (i + 1 < n && s[i] == 'S' && s[i + 1] == 't') {
		mct_buf_adds(&b, "std");
		i += 2;
	}
	for (k = 0; i < n && isdigit((unsigned char)s[i]) && s[i] != '0'; k++) {
		for (len = 0; i < n && isdigit((unsigned char)s[i]) &&
		    len < 100000; i++)
			len = len * 10 + (size_t)(s[i] - '0');
		for (have = 0; have < len && i + have < n &&
		    (isalnum((unsigned char)s[i + have]) || s[i + have] == '_');
		    have++)
			;
		if (have == 0)
			break;
		if (b.len > 0)
			mct_buf_adds(&b, "::");
		if (have == len && len >= 10 && strncmp(s + i, "_GLOBAL__N", 10) == 0)
			mct_buf_adds(&b, "(anonymous namespace)");
		else
			mct_buf_add(&b, s + i, have);
		i += have;
		if (have < len || !nest)
			break;
	}
	if (b.len == 0 || (b.len == 3 && memcmp(b.p, "std", 3) == 0)) {
		free(b.p);
		return NULL;
	}
	mct_buf_addc(&b, '\0');
	return b.p;
}

/*
 * The short form of a name (its text, not JSON) appended to out.
 * Itanium-mangled names are demangled first, or, where the demangler
 * refuses one (cut), their qualified name read by hand; a name that is
 * neither a signature nor a generated GEMM is copied as it is.
 */
void
mct_short(const char *s, size_t n, struct mct_buf *out)
{
	char *m = NULL, *d;
	size_t start = out->len;

	if (n > 2 && s[0] == '_' && s[1] == 'Z') {
		m = mct_xmalloc(n + 1);
		memcpy(m, s, n);
		m[n] = '\0';
		if ((d = mct_demangle(m)) != NULL ||
		    (d = nested(m, n)) != NULL) {
			free(m);
			m = d;
			s = m;
			n = strlen(m);
		}
	}
	if (gemm(s, n, out) != 0) {
		if (signature(s, n)) {
			strip(s, n, out);
			if (out->len > start)
				functors(s, n, out);
		}
		if (out->len == start)	/* nothing left: keep it all */
			mct_buf_add(out, s, n);
	}
	free(m);
}
