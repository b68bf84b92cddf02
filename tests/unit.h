/*
 * unit.h - what the unit tests of libmct share: the TAP checks, text for
 * messages, a random stream, temporary files, stderr caught, and the
 * helpers one area's tests lend another.  Each area's tests are in
 * tests/unit-AREA.c; tests/unit.c runs them.
 */
#ifndef MCT_UNIT_H
#define MCT_UNIT_H

#include <stddef.h>
#include <stdint.h>

#include "mct_private.h"

typedef mct_i128 i128;

/* unit.c: TAP. */
int		 ok(int, const char *, ...) __attribute__((format(printf, 2, 3)));
void		 diag(const char *, ...) __attribute__((format(printf, 1, 2)));

/* unit.c: text as a C string literal's inside (a ring of 8); an i128. */
const char	*esc(const char *, size_t);
#define ESC(s)	esc((s), strlen(s))
const char	*i128s(i128);

/* unit.c: one random stream for all the tests, reseeded by some. */
extern uint64_t	 rng_state;
uint64_t	 rnd(void);
unsigned	 rn(unsigned);

/*
 * unit.c: the temporary directory of the tests run in a child process
 * (made around them), a file in it (a ring of 4 paths), a gzip file.
 */
extern char	 tmpdir[256];
const char	*tfile(const char *, const void *, size_t);
#define TFILE(name, s)	tfile((name), (s), sizeof(s) - 1)
void		 write_gz(const char *, const char *, const char *);

/* unit.c: stderr to a file while f runs; what was said in msg. */
void		 quietly(void (*)(void *), void *, char *, size_t);

/* unit-json.c: the scanner, and json-c in strict mode. */
struct json_object;
int		 scan(const char *, size_t, int, int, struct mct_buf *,
		    struct mct_scan *);
const char	*rcname(int);
int		 json_number(const char *, size_t);
int		 jws(unsigned char);
int		 only_ws(const char *, const char *);
int		 jc_parse(const char *, size_t, struct json_object **);
void		 jc_free(void);
int		 valid_compact(const char *, size_t);

/* unit-field.c */
int		 get_args_n(struct mct_event *, const struct mct_header *,
		    struct mct_buf *, struct mct_val *, int64_t *);

/* unit-reader.c: operands read with the reader, events and stderr kept. */
struct rd {
	struct mct_buf events;	/* one line per event */
	struct mct_buf err;	/* what the reader said on stderr */
	int nev, status, badjson, badkey;
	struct mct_header h;	/* scalars; strings below */
	char *top, *line, *why;
};
void		 rd_readv(int, const char **, enum mct_unit, struct rd *);
void		 rd_readf(const char *, enum mct_unit, struct rd *);
void		 rd_free(struct rd *);
void		 t_read(const char *, const struct rd *, const char *, int,
		    const char *);

/*
 * The tests of each area, in tests/unit-AREA.c; tests/unit.c lists them
 * in the order they run.
 */
void	test_time(void);
void	test_dec_fast(void);
void	test_tmpfile(void);
void	test_heap(void);
void	test_sort(void);
void	test_threads(void);
void	test_cut(void);
void	test_scan(void);
void	test_event(void);
void	test_unspace(void);
void	test_compact(void);
void	test_times(void);
void	test_field(void);
void	test_vfields(void);
void	test_get_times(void);
void	test_has_key(void);
void	test_obj_keys(void);
void	test_short(void);
void	test_stack(void);
void	test_flow(void);
void	test_map(void);
void	test_intern(void);
void	test_group(void);
void	test_group_key(void);
void	test_sketch(void);
void	test_phases(void);
void	test_device(void);
void	test_seen(void);
void	test_rankpart(void);
void	test_runsum(void);
void	test_expr(void);
void	test_metrics_wall(void);
void	test_metrics_log(void);
void	test_metrics_series(void);
void	test_differential(void);
void	test_pairbe(void);
void	test_bigtop(void);
void	test_reader(void);
void	test_input(void);
void	test_sources(void);
void	test_ranks(void);
void	test_src_errors(void);
void	test_src_kind(void);
void	test_lines(void);
void	test_two_readers(void);
void	test_next_lines(void);
void	test_editor(void);
void	test_editor_event(void);
void	test_rules(void);
void	test_rules_vfields(void);

#endif
