/*
 * gentrace - write a synthetic GPU trace shaped like the seed's mcTracer trace
 *
 * The seed (a tutorial kept outside this tree) analyses
 * tracer_out-39991.json: an 80.98 s MXMACA / MetaX C500 timeline of a MoE
 * benchmark, 225,852 Chrome Trace Event Format events.  This program writes
 * a trace with the same structure (host runtime API on pid 1, kernels on
 * pid 2, copies on pid 3, args.co_id correlation, s/f flows, the same
 * phases) and, at --scale 1, with every count, total, share, median, min,
 * max, first/last and byte figure the seed prints, to its rounding.
 * See tests/gentrace.md for what the trace contains.
 *
 * Design notes
 *  - Deterministic: all randomness comes from a hash of (--seed, key), so
 *    every pass over the timeline produces the same events.  The figures
 *    do not depend on --seed: jitter is antithetic (paired +j/-j),
 *    medians sit on designed plateaus, and the helper work outside the
 *    steady rounds ("extras") absorbs the remainder of each category total,
 *    computed by a calibration pass at scale 1.
 *  - Streaming: events are produced in host-clock order; every future event
 *    has ts >= the host clock, so a small heap releases events in ts order
 *    (layout time).  "sections" runs the generator once per lane group,
 *    "shuffle" permutes windows of WINDOW sorted events.  Memory does not
 *    grow with --scale (except --stats, which keeps durations for medians).
 *  - Times are int64 nanoseconds relative to ORIGIN internally.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define US INT64_C(1000)
#define MS INT64_C(1000000)
#define SEC INT64_C(1000000000)

#define ORIGIN INT64_C(1712195480123456789)
#define COLL_NAME "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
#define COLL_TID 7                      /* the collectives' stream */
#define HOST_PID 1
#define HOST_TID 39991
#define WINDOW 4096 /* shuffle window, events */

/* ------------------------------------------------------------------ */
/* Names                                                                */

enum {
	CAT_HOST, CAT_CUSTOM, CAT_ROUTING, CAT_COPY, CAT_GEMM, CAT_SORT,
	CAT_ELEM, CAT_SOFTMAX, CAT_SEM, NCAT
};
static const char *const cat_id[NCAT] = {
	"host", "custom", "routing", "copy", "gemm", "sort",
	"elementwise", "softmax", "semaphore"
};

enum {
	/* host runtime API (pid 1) */
	N_GETDEVICE, N_LAUNCH, N_MODLAUNCH, N_MEMCPY, N_STREAMSYNC, N_DEVSYNC,
	N_MODLOAD, N_MEMSET, N_ISCAPT, N_LASTERR, N_EVREC, N_WAITEV, N_EVQUERY,
	N_MALLOC, N_FREE, N_HOSTALLOC, N_FREEHOST, N_SETDEV, N_DEVCOUNT,
	N_PROPS, N_DEVATTR, N_STRCREATE, N_STRDESTROY, N_EVCREATE,
	N_EVDESTROY, N_FUNCATTR, N_EVSYNC,
	/* kernels (pid 2) */
	K_KK, K_KK1,
	K_REORDER, K_GATHER, K_INDEXPUT, K_SCATGATH, K_SCATDIM2,
	K_MEMSET, K_RSHIST, K_RSEXSUM, K_RSONESWEEP, K_HIST1D, K_MEMSETD32,
	K_FILLI, K_FILLF, K_RSUM, K_RMAX, K_ADD, K_MUL, K_NORMAL,
	K_SOFTMAX, K_TOPK, K_TOPK2,
	K_GEMM_RT, K_GEMM_NN, K_GEMM_CIJK,
	K_SEM,
	/* copies (pid 3) */
	C_DTOD, C_DTOH_PAGE, C_DTOH_PIN, C_HTOD,
	NNAMES
};

typedef struct {
	const char *name;
	int pid, cat;
	int api;               /* device names: launching host API, -1 none */
	int64_t med;           /* host names: median of regular calls, ns */
	int step, kmax;        /* host jitter: +-k*step, k in 1..kmax */
	int gx, gy, bx, regs, dyn, stat; /* kernels: launch config */
} NameDef;

#define HOSTN(s, m, st, k) { s, 1, CAT_HOST, -1, m, st, k, 0, 0, 0, 0, 0, 0 }
#define KERN(s, c, a, gx, gy, bx, r, d, st) \
	{ s, 2, c, a, 0, 0, 0, gx, gy, bx, r, d, st }
#define COPY(s) { s, 3, CAT_COPY, N_MEMCPY, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

static const NameDef names[NNAMES] = {
	[N_GETDEVICE] = HOSTN("mcGetDevice", 180, 10, 5),
	[N_LAUNCH] = HOSTN("mcLaunchKernel", 4870, 10, 6),
	[N_MODLAUNCH] = HOSTN("mcModuleLaunchKernel", 6310, 10, 8),
	[N_MEMCPY] = HOSTN("mcMemcpyAsync", 2590, 10, 8),
	[N_STREAMSYNC] = HOSTN("mcStreamSynchronize", 1890, 10, 6),
	[N_DEVSYNC] = HOSTN("mcDeviceSynchronize", 2100, 10, 6),
	[N_MODLOAD] = HOSTN("mcModuleLoad", 251400000, 0, 1),
	[N_MEMSET] = HOSTN("mcMemsetAsync", 3200, 20, 5),
	[N_ISCAPT] = HOSTN("mcStreamIsCapturing", 350, 10, 6),
	[N_LASTERR] = HOSTN("mcGetLastError", 120, 10, 4),
	[N_EVREC] = HOSTN("mcEventRecord", 2100, 20, 8),
	[N_WAITEV] = HOSTN("mcStreamWaitEvent", 1600, 20, 8),
	[N_EVQUERY] = HOSTN("mcEventQuery", 900, 10, 8),
	[N_MALLOC] = HOSTN("mcMalloc", 14000, 500, 10),
	[N_FREE] = HOSTN("mcFree", 7000, 200, 10),
	[N_HOSTALLOC] = HOSTN("mcMallocHost", 180000, 5000, 10),
	[N_FREEHOST] = HOSTN("mcFreeHost", 95000, 3000, 10),
	[N_SETDEV] = HOSTN("mcSetDevice", 41000, 500, 6),
	[N_DEVCOUNT] = HOSTN("mcGetDeviceCount", 85000000, 0, 1),
	[N_PROPS] = HOSTN("mcGetDeviceProperties", 26000, 300, 6),
	[N_DEVATTR] = HOSTN("mcDeviceGetAttribute", 400, 10, 6),
	[N_STRCREATE] = HOSTN("mcStreamCreateWithFlags", 43000, 500, 6),
	[N_STRDESTROY] = HOSTN("mcStreamDestroy", 31000, 500, 6),
	[N_EVCREATE] = HOSTN("mcEventCreateWithFlags", 1500, 20, 6),
	[N_EVDESTROY] = HOSTN("mcEventDestroy", 1100, 20, 6),
	[N_FUNCATTR] = HOSTN("mcFuncGetAttributes", 2500, 20, 6),
	[N_EVSYNC] = HOSTN("mcEventSynchronize", 20000, 0, 1),

	/* TileLang custom kernels: config comes from the phase (kk_cfg) */
	[K_KK] = KERN("kernel_kernel", CAT_CUSTOM, N_MODLAUNCH, 0, 0, 128, 192, 32768, 0),
	[K_KK1] = KERN("kernel_kernel_1", CAT_CUSTOM, N_MODLAUNCH, 0, 0, 128, 150, 16384, 0),

	/* routing / reorder / scatter / gather */
	[K_REORDER] = KERN("void moe::token_reorder_kernel<c10::BFloat16, 8>(c10::BFloat16 const*, c10::BFloat16*, int const*, int const*, int, int, int)",
		CAT_ROUTING, N_LAUNCH, 7168, 1, 256, 40, 0, 0),
	[K_GATHER] = KERN("void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, long, long, bool)",
		CAT_ROUTING, N_LAUNCH, 14336, 1, 128, 32, 0, 0),
	[K_INDEXPUT] = KERN("void at::native::index_put_kernel<c10::BFloat16, long, 128>(c10::BFloat16*, c10::BFloat16 const*, long const*, long, long, long)",
		CAT_ROUTING, N_LAUNCH, 3584, 1, 128, 38, 0, 0),
	[K_SCATGATH] = KERN("void at::native::_scatter_gather_elementwise_kernel<128, 8, void at::native::_cuda_scatter_gather_internal_kernel<true, c10::BFloat16>::operator()<at::native::TensorAssign>(at::TensorIterator&, long, long, long, at::native::TensorAssign const&)::{lambda(int)#1}>(int, void at::native::_cuda_scatter_gather_internal_kernel<true, c10::BFloat16>::operator()<at::native::TensorAssign>(at::TensorIterator&, long, long, long, at::native::TensorAssign const&)::{lambda(int)#1})",
		CAT_ROUTING, N_LAUNCH, 8192, 1, 128, 56, 0, 0),
	[K_SCATDIM2] = KERN("void at::native::_scatter_elementwise_kernel_dim2_opt<128, 4, at::native::ReduceAdd, c10::BFloat16, long>(c10::BFloat16*, c10::BFloat16 const*, long const*, long, long, long, long)",
		CAT_ROUTING, N_LAUNCH, 28672, 1, 128, 48, 0, 1024),

	/* sort / histogram / memset */
	[K_MEMSET] = KERN("void at::native::memset_kernel<int>(int*, int, long)",
		CAT_SORT, N_LAUNCH, 64, 1, 256, 16, 0, 0),
	[K_RSHIST] = KERN("void at_cuda_detail::cub::DeviceRadixSortHistogramKernel<at_cuda_detail::cub::DeviceRadixSortPolicy<long, long, unsigned int>::Policy800, false, long, unsigned int>(unsigned int*, long const*, unsigned int, int, int)",
		CAT_SORT, N_LAUNCH, 208, 1, 128, 64, 0, 9216),
	[K_RSEXSUM] = KERN("void at_cuda_detail::cub::DeviceRadixSortExclusiveSumKernel<at_cuda_detail::cub::DeviceRadixSortPolicy<long, long, unsigned int>::Policy800, unsigned int>(unsigned int*)",
		CAT_SORT, N_LAUNCH, 8, 1, 256, 32, 0, 1088),
	[K_RSONESWEEP] = KERN("void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<at_cuda_detail::cub::DeviceRadixSortPolicy<long, long, unsigned int>::Policy800, false, long, long, unsigned int, int, int>(int*, int*, unsigned int*, unsigned int const*, long*, long const*, long*, long const*, int, int, int)",
		CAT_SORT, N_LAUNCH, 112, 1, 384, 72, 0, 27648),
	[K_HIST1D] = KERN("void at::cuda::kernelHistogram1D<long, long, long, 1, 2, -1, (at::cuda::CUDAHistogramMemoryType)0>(at::cuda::detail::TensorInfo<long, long>, at::cuda::detail::TensorInfo<long, long>, at::cuda::detail::TensorInfo<long, long>, int, long, long, long)",
		CAT_SORT, N_LAUNCH, 104, 1, 512, 24, 512, 0),
	[K_MEMSETD32] = KERN("mc_memset_d32_kernel",
		CAT_SORT, N_MEMSET, 2048, 1, 256, 12, 0, 0),

	/* elementwise / reduce / fill */
	[K_FILLI] = KERN("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, std::array<char*, 1ul> >(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)",
		CAT_ELEM, N_LAUNCH, 64, 1, 128, 16, 0, 0),
	[K_FILLF] = KERN("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
		CAT_ELEM, -1, 4096, 1, 128, 16, 0, 0),
	[K_RSUM] = KERN("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4>)",
		CAT_ELEM, N_LAUNCH, 128, 1, 512, 32, 0, 16),
	[K_RMAX] = KERN("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MaxOps<float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MaxOps<float>, unsigned int, float, 4, 4>)",
		CAT_ELEM, N_LAUNCH, 128, 1, 512, 32, 0, 16),
	[K_ADD] = KERN("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
		CAT_ELEM, N_LAUNCH, 7168, 1, 128, 20, 0, 0),
	[K_MUL] = KERN("void at::native::vectorized_elementwise_kernel<4, at::native::binary_internal::MulFunctor<float>, std::array<char*, 3ul> >(int, at::native::binary_internal::MulFunctor<float>, std::array<char*, 3ul>)",
		CAT_ELEM, N_LAUNCH, 7168, 1, 128, 20, 0, 0),
	[K_NORMAL] = KERN("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, at::CUDAGeneratorImpl*)::{lambda(float)#1}>(long, at::PhiloxCudaState, at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, at::CUDAGeneratorImpl*)::{lambda(float)#1})",
		CAT_ELEM, N_LAUNCH, 1664, 1, 256, 40, 0, 0),

	/* softmax / topk */
	[K_SOFTMAX] = KERN("void (anonymous namespace)::softmax_warp_forward<float, float, float, 8, false, false>(float*, float const*, int, int, int, bool const*, int, bool)",
		CAT_SOFTMAX, N_LAUNCH, 1024, 1, 128, 40, 0, 0),
	[K_TOPK] = KERN("void at::native::mbtopk::computeBlockwiseWithinKCounts<unsigned int>(unsigned int*, short*, unsigned int*, int, int, bool, unsigned int*, unsigned int*)",
		CAT_SOFTMAX, N_LAUNCH, 512, 1, 256, 30, 0, 4096),
	[K_TOPK2] = KERN("void at::native::mbtopk::computeBlockwiseKthCounts<unsigned int>(unsigned int*, short*, unsigned int, unsigned int, unsigned int*)",
		CAT_SOFTMAX, N_LAUNCH, 512, 1, 256, 28, 0, 2048),

	/* mcBLAS / GEMM */
	[K_GEMM_RT] = KERN("mcblas_gemm_bf16_tn_mt128x128x32_kernel",
		CAT_GEMM, N_MODLAUNCH, 32, 2, 256, 128, 49152, 0),
	[K_GEMM_NN] = KERN("mcblas_gemm_f32_nn_mt64x64x16_kernel",
		CAT_GEMM, N_MODLAUNCH, 112, 56, 256, 96, 32768, 0),
	[K_GEMM_CIJK] = KERN("Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI32x32x8x1_SN_gemm_kernel",
		CAT_GEMM, N_MODLAUNCH, 448, 1, 256, 128, 65536, 0),

	/* semaphore / sync */
	[K_SEM] = KERN("void tl::semaphore_reset_kernel<unsigned int>(unsigned int*, int)",
		CAT_SEM, N_LAUNCH, 1, 1, 64, 8, 0, 0),

	[C_DTOD] = COPY("memcpy DTOD(device,device)"),
	[C_DTOH_PAGE] = COPY("memcpy DTOH(device,pageable)"),
	[C_DTOH_PIN] = COPY("memcpy DTOH(device,pinned)"),
	[C_HTOD] = COPY("memcpy HTOD(pinned,device)"),
};

/* phases a device op belongs to; also selects the launch config */
enum { PH_BIG, PH_SMALL, PH_W1, PH_W2, PH_EXTRA, NPH };

/* grid of the custom kernels by phase: [kk/kk1][phase] */
static const int kk_grid[2][4][2] = {
	{ { 2056, 32 }, { 1028, 16 }, { 520, 32 }, { 260, 16 } },
	{ { 2056, 56 }, { 1028, 28 }, { 520, 56 }, { 260, 28 } },
};

/* ------------------------------------------------------------------ */
/* Targets: the section-2 totals reached by calibration (scale 1)       */

enum { T_ROUTING, T_SORT, T_ELEM, T_SOFTMAX, T_GEMM, T_DTOD, T_PAGE, T_PIN,
	T_HTOD, NTGT };

static const int64_t tgt_dur[NTGT] = {
	[T_ROUTING] = INT64_C(3190000000), [T_SORT] = 42000000,
	[T_ELEM] = 39000000, [T_SOFTMAX] = 30600000, [T_GEMM] = 86000000,
	[T_DTOD] = 790030000, [T_PAGE] = 14740000, [T_PIN] = 3020000,
	[T_HTOD] = 2940000,
};
static const int64_t tgt_bytes[NTGT] = {
	[T_DTOD] = INT64_C(426010000000), [T_HTOD] = 1380000,
};

static int target_of(int name)
{
	switch (name) {
	case C_DTOD: return T_DTOD;
	case C_DTOH_PAGE: return T_PAGE;
	case C_DTOH_PIN: return T_PIN;
	case C_HTOD: return T_HTOD;
	default: break;
	}
	switch (names[name].cat) {
	case CAT_ROUTING: return T_ROUTING;
	case CAT_SORT: return T_SORT;
	case CAT_ELEM: return T_ELEM;
	case CAT_SOFTMAX: return T_SOFTMAX;
	case CAT_GEMM: return T_GEMM;
	default: return -1;
	}
}

static double unit_dur[NTGT], unit_bytes[NTGT];

/* Host specials: durations of the slow calls, designed so that the host
 * API table of section 2 comes out exactly at scale 1. */
#define GD_PERIOD 1409   /* every 1409th mcGetDevice (index 700 mod) is slow */
#define GD_PHASE 700
#define GD_NSPEC 100
static int64_t spec_getdev[GD_NSPEC];
static int64_t spec_first[NNAMES]; /* first launch of a kernel name */

/* ------------------------------------------------------------------ */
/* Hashing / pseudo-randomness                                          */

static uint64_t mix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static uint64_t hash3(uint64_t seed, uint64_t a, uint64_t b)
{
	return mix64(seed ^ mix64(a * UINT64_C(0x100000001b3) ^ mix64(b + 77)));
}

/* uniform in [-1, 1) */
static double hsym(uint64_t h)
{
	return (double)(h >> 11) * (1.0 / 4503599627370496.0) - 1.0;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t round64(double x) { return x < 0 ? -(int64_t)(-x + 0.5) : (int64_t)(x + 0.5); }

/* ------------------------------------------------------------------ */
/* Events                                                               */

enum { EV_X, EV_S, EV_F, EV_M, EV_COLL, EV_STEP };

typedef struct {
	int64_t ts, dur, id, bytes;
	uint64_t seq;
	uint16_t name;
	uint8_t type, pid, tid, phase, orphan;
} Ev;

typedef struct Gen Gen;
typedef void (*SinkFn)(Gen *, const Ev *);

struct Gen {
	int calib;
	double scale;
	uint64_t seed, rng;
	int64_t H;              /* host clock */
	int64_t dev_free[2];    /* end of the last op on stream 0 / 1 */
	int64_t next_id;
	uint64_t seq;
	int64_t reg_calls[NNAMES];
	int64_t getdev_idx;
	unsigned char launched[NNAMES];
	int64_t host_sum[NNAMES];
	double fixed_dur[NTGT], w_dur[NTGT], fixed_bytes[NTGT], w_bytes[NTGT];
	int64_t nb, ns;         /* steady rounds */
	SinkFn sink;
	/* recorded for --stats / debugging */
	int64_t lat_n, lat_sum, lat_max, queue_neg;
	int64_t mark_big_first_kk, mark_small_last_kk_end;
	int64_t teardown_copy;
};

static uint64_t rnd(Gen *g)
{
	g->rng += UINT64_C(0x9e3779b97f4a7c15);
	return mix64(g->rng);
}

/* --profiler-steps: a ProfilerStep#N annotation over each steady round */
static int profiler_steps;
/* --event-sync: each steady round ends with mcEventRecord, mcEventSynchronize */
static int event_sync;
static int64_t nsteps_written;
static int64_t round_period(int ph);

static void emit(Gen *g, Ev *e)
{
	e->seq = g->seq++;
	g->sink(g, e);
}

static void emit_x(Gen *g, int name, int pid, int tid, int64_t ts, int64_t dur,
    int64_t id, int64_t bytes, int phase, int orphan)
{
	Ev e;
	memset(&e, 0, sizeof e);
	e.type = EV_X;
	e.name = (uint16_t)name;
	e.pid = (uint8_t)pid;
	e.tid = (uint8_t)tid;
	e.ts = ts;
	e.dur = dur;
	e.id = id;
	e.bytes = bytes;
	e.phase = (uint8_t)phase;
	e.orphan = (uint8_t)orphan;
	if (pid == HOST_PID)
		g->host_sum[name] += dur;
	emit(g, &e);
}

static void emit_flow(Gen *g, int type, int pid, int tid, int64_t ts, int64_t id)
{
	Ev e;
	memset(&e, 0, sizeof e);
	e.type = (uint8_t)type;
	e.pid = (uint8_t)pid;
	e.tid = (uint8_t)tid;
	e.ts = ts;
	e.id = id;
	emit(g, &e);
}

/* ------------------------------------------------------------------ */
/* Host durations                                                       */

static int64_t host_regular(Gen *g, int api)
{
	const NameDef *d = &names[api];
	int64_t c = g->reg_calls[api]++;
	int64_t p = c >> 1, k, j;
	if (d->step == 0)
		return d->med;
	k = (p % 4 == 0) ? 0 : 1 + (int64_t)(hash3(g->seed, 1000 + (uint64_t)api, (uint64_t)p) % (uint64_t)d->kmax);
	j = k * d->step;
	return d->med + ((c & 1) ? -j : j);
}

/* duration of a host call of api; kname = kernel launched (first-launch
 * specials) or -1 */
static int64_t host_dur(Gen *g, int api, int kname)
{
	if (api == N_GETDEVICE) {
		int64_t i = g->getdev_idx++;
		if (i % GD_PERIOD == GD_PHASE)
			return spec_getdev[(i / GD_PERIOD) % GD_NSPEC];
	}
	if ((api == N_LAUNCH || api == N_MODLAUNCH) && kname >= 0 &&
	    !g->launched[kname]) {
		g->launched[kname] = 1;
		if (spec_first[kname] > 0)
			return spec_first[kname];
	}
	return host_regular(g, api);
}

/* python time between host calls */
static int64_t pygap(Gen *g, int64_t lo, int64_t span)
{
	return lo + (int64_t)(rnd(g) % (uint64_t)span);
}
static int64_t lat_normal(Gen *g) { return 2600 + (int64_t)(rnd(g) % 2400); }
static int64_t dgap(Gen *g) { return 1200 + (int64_t)(rnd(g) % 1600); }

static void host_wait_until(Gen *g, int64_t t)
{
	if (g->H < t)
		g->H = t;
}

/* a host call without device work */
static void host_call(Gen *g, int api, int64_t dur)
{
	int64_t id = g->next_id++;
	if (dur < 0)
		dur = host_dur(g, api, -1);
	emit_x(g, api, HOST_PID, HOST_TID, g->H, dur, id, 0, PH_EXTRA, 0);
	g->H += dur + pygap(g, 300, 1500);
}

/* a synchronize with a designed duration D that ends when the device
 * drains (or later, if the device is idle already) */
static void sync_designed(Gen *g, int api, int64_t D)
{
	int64_t drained = max64(g->dev_free[0], g->dev_free[1]);
	host_wait_until(g, drained + 2500 - D);
	host_call(g, api, D);
}

/* ------------------------------------------------------------------ */
/* Device work                                                          */

static int64_t absorb_dur(Gen *g, int name, double w)
{
	int t = target_of(name);
	if (g->calib) {
		g->w_dur[t] += w;
		return 0;
	}
	return round64(unit_dur[t] * w);
}

static int64_t absorb_bytes(Gen *g, int name, double w)
{
	int t = target_of(name);
	if (g->calib) {
		g->w_bytes[t] += w;
		return 0;
	}
	return round64(unit_bytes[t] * w);
}

static void note_fixed(Gen *g, int name, int64_t dur, int64_t bytes)
{
	int t = target_of(name);
	if (!g->calib || t < 0)
		return;
	g->fixed_dur[t] += (double)dur;
	g->fixed_bytes[t] += (double)bytes;
}

static void note_pair(Gen *g, int64_t hs, int64_t he, int64_t ds)
{
	int64_t l = ds - hs;
	g->lat_n++;
	g->lat_sum += l;
	if (l > g->lat_max)
		g->lat_max = l;
	if (ds < he)
		g->queue_neg++;
}

/* one device op and (unless orphan) the host call that launched it.
 * fixed_lat > 0 forces the launch latency. */
static void dev_op(Gen *g, int name, int64_t dur, int64_t bytes, int stream,
    int phase, int orphan, int64_t fixed_lat)
{
	const NameDef *d = &names[name];
	int64_t lat = fixed_lat > 0 ? fixed_lat : lat_normal(g);
	int64_t id, st, hs, hd, ready;
	int dpid = d->pid, dtid = stream;

	if (dur < 1)
		dur = 1;
	if (orphan) {
		id = g->next_id++;
		st = max64(g->dev_free[stream] + dgap(g), g->H + lat);
		emit_x(g, name, dpid, dtid, st, dur, id, bytes, phase, 1);
		g->dev_free[stream] = st + dur;
		return;
	}
	hs = g->H;
	hd = host_dur(g, d->api, name);
	id = g->next_id++;
	ready = hs + lat;
	if (hd >= 100 * US)     /* slow (lazy loading) launch: enqueued at its end */
		ready = hs + hd + lat;
	st = max64(g->dev_free[stream] + dgap(g), ready);
	emit_x(g, d->api, HOST_PID, HOST_TID, hs, hd, id, 0, phase, 0);
	emit_flow(g, EV_S, HOST_PID, HOST_TID, hs, id);
	emit_x(g, name, dpid, dtid, st, dur, id, bytes, phase, 0);
	emit_flow(g, EV_F, dpid, dtid, st, id);
	note_pair(g, hs, hs + hd, st);
	g->dev_free[stream] = st + dur;
	g->H = hs + hd + pygap(g, 2500, 5000);
}

/* a copy whose host call waits for it (pageable DTOH): the host call
 * lasts until the copy has run behind everything queued */
static void copy_blocking(Gen *g, int name, int64_t cdur, int64_t bytes, int phase)
{
	int64_t hs = g->H, id = g->next_id++;
	int64_t st = max64(g->dev_free[0] + dgap(g), hs + lat_normal(g));
	int64_t en = st + cdur;
	int64_t he = en + 2000 + (int64_t)(rnd(g) % 3000);
	emit_x(g, N_MEMCPY, HOST_PID, HOST_TID, hs, he - hs, id, 0, phase, 0);
	emit_flow(g, EV_S, HOST_PID, HOST_TID, hs, id);
	emit_x(g, name, 3, 0, st, cdur, id, bytes, phase, 0);
	emit_flow(g, EV_F, 3, 0, st, id);
	note_pair(g, hs, he, st);
	g->dev_free[0] = en;
	g->H = he + pygap(g, 1500, 3000);
}

/* a blocking copy with a designed host duration D: the device copy runs
 * at the end of the call (the device idles meanwhile) */
static void copy_designed(Gen *g, int name, int64_t cdur, int64_t bytes, int64_t D)
{
	int64_t hs = g->H, id = g->next_id++;
	int64_t st = max64(g->dev_free[0] + dgap(g), hs + D - 3000 - cdur);
	int64_t en = st + cdur;
	int64_t he = max64(hs + D, en + 3000);
	emit_x(g, N_MEMCPY, HOST_PID, HOST_TID, hs, he - hs, id, 0, PH_EXTRA, 0);
	emit_flow(g, EV_S, HOST_PID, HOST_TID, hs, id);
	emit_x(g, name, 3, 0, st, cdur, id, bytes, PH_EXTRA, 0);
	emit_flow(g, EV_F, 3, 0, st, id);
	note_pair(g, hs, he, st);
	g->dev_free[0] = en;
	g->H = he + pygap(g, 1500, 3000);
}

/* ------------------------------------------------------------------ */
/* The steady round: one MoE forward step                               */

typedef struct {
	int name;
	int64_t big, small;     /* base durations, ns */
	int64_t bbig, bsmall;   /* bytes (copies) */
	int jit;                /* antithetic jitter, permille */
} Slot;

#define RT(n, b, sm) { n, b, sm, 0, 0, 50 }
#define DTOD_SLOT { C_DTOD, 229167, 50000, 125829120, 25165824, 40 }
static const Slot slots[] = {
	/* 0-3: routing metadata to the device */
	{ C_HTOD, 3900, 3900, 4104, 4104, 30 },
	{ C_HTOD, 3400, 3400, 2056, 1032, 30 },
	{ C_HTOD, 3100, 3100, 520, 520, 30 },
	{ C_HTOD, 2800, 2800, 8, 8, 30 },
	/* 4-6: router gate, softmax, top-k */
	{ K_GEMM_RT, 350000, 80000, 0, 0, 40 },
	{ K_SOFTMAX, 40000, 20000, 0, 0, 50 },
	{ K_TOPK, 60000, 30000, 0, 0, 50 },
	/* 7-20: sort tokens by expert */
	{ K_MEMSET, 2600, 2400, 0, 0, 50 },
	{ K_MEMSET, 2600, 2400, 0, 0, 50 },
	{ K_RSHIST, 6000, 4000, 0, 0, 50 },
	{ K_RSEXSUM, 3000, 2500, 0, 0, 50 },
	{ K_RSONESWEEP, 8000, 5000, 0, 0, 50 },
	{ K_RSONESWEEP, 8000, 5000, 0, 0, 50 },
	{ K_RSONESWEEP, 8000, 5000, 0, 0, 50 },
	{ K_RSONESWEEP, 8000, 5000, 0, 0, 50 },
	{ K_RSONESWEEP, 8000, 5000, 0, 0, 50 },
	{ K_RSONESWEEP, 8000, 5000, 0, 0, 50 },
	{ K_RSONESWEEP, 8000, 5000, 0, 0, 50 },
	{ K_RSONESWEEP, 8000, 5000, 0, 0, 50 },
	{ K_HIST1D, 10000, 6000, 0, 0, 50 },
	{ K_HIST1D, 10000, 6000, 0, 0, 50 },
	/* 21-22 */
	{ K_FILLI, 5000, 3000, 0, 0, 50 },
	{ K_FILLI, 5000, 3000, 0, 0, 50 },
	/* 23-34: routing, tokens to expert order (8.6 ms big, 2.4 ms small) */
	RT(K_REORDER, 1290000, 366667), RT(K_REORDER, 1290000, 366667),
	RT(K_GATHER, 645000, 183333), RT(K_GATHER, 645000, 183333),
	RT(K_GATHER, 645000, 183333), RT(K_GATHER, 645000, 183333),
	RT(K_INDEXPUT, 591250, 166667), RT(K_INDEXPUT, 591250, 166667),
	RT(K_SCATGATH, 564375, 150000), RT(K_SCATGATH, 564375, 150000),
	RT(K_SCATGATH, 564375, 150000), RT(K_SCATGATH, 564375, 150000),
	/* 35-46: expert buffers */
	DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT,
	DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT,
	/* 47-49: the fused MoE */
	{ K_SEM, 3150, 3150, 0, 0, 100 },
	{ K_KK, 0, 0, 0, 0, 0 },
	{ K_KK1, 0, 0, 0, 0, 0 },
	/* 50-62: routing back (12.9 ms big, 3.6 ms small) */
	RT(K_SCATDIM2, 1558750, 433333), RT(K_SCATDIM2, 1558750, 433333),
	RT(K_SCATDIM2, 1558750, 433333), RT(K_SCATDIM2, 1558750, 433333),
	RT(K_SCATDIM2, 1558750, 433333), RT(K_SCATDIM2, 1558750, 433333),
	RT(K_SCATGATH, 591250, 166667), RT(K_SCATGATH, 591250, 166667),
	RT(K_SCATGATH, 591250, 166667),
	RT(K_GATHER, 483750, 133333), RT(K_GATHER, 483750, 133333),
	RT(K_INDEXPUT, 403125, 116667), RT(K_INDEXPUT, 403125, 116667),
	/* 63-74 */
	DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT,
	DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT, DTOD_SLOT,
	/* 75-78: statistics of the step */
	{ K_RSUM, 30000, 15000, 0, 0, 50 },
	{ K_RMAX, 28000, 14000, 0, 0, 50 },
	{ K_ADD, 22000, 11000, 0, 0, 50 },
	{ K_MUL, 21000, 10500, 0, 0, 50 },
	/* 79-81: results to the host; 80 blocks until the step is done */
	{ C_DTOH_PIN, 13300, 13300, 8, 8, 30 },
	{ C_DTOH_PAGE, 33000, 33000, 48, 48, 30 },
	{ C_DTOH_PAGE, 32500, 32500, 8, 8, 30 },
};
#define NSLOTS ((int)(sizeof slots / sizeof slots[0]))
#define SLOT_KK 48
#define SLOT_BLOCK1 80
#define SLOT_BLOCK2 81

/* host noise of a round: name, count; plus ROUND_GETDEV mcGetDevice and
 * ROUND_SYNCS mcStreamSynchronize after the blocking copies */
typedef struct { int name; int64_t count; } NItem;
static const NItem round_noise[] = {
	{ N_ISCAPT, 20 }, { N_LASTERR, 16 }, { N_EVREC, 2 }, { N_WAITEV, 2 },
	{ N_EVQUERY, 2 }, { N_MALLOC, 1 }, { N_FREE, 1 },
};
#define ROUND_GETDEV 600
#define ROUND_SYNCS 7

/* antithetic jitter: rounds 2p and 2p+1 get +j and -j; an unpaired last
 * round gets 0, so every pair of rounds sums to exactly twice the base */
static int64_t anti(Gen *g, int64_t amp, uint64_t key, int64_t r, int64_t nr)
{
	int64_t j;
	if ((nr & 1) && r == nr - 1)
		return 0;
	j = (int64_t)((double)amp * hsym(hash3(g->seed, key, (uint64_t)(r >> 1))));
	return (r & 1) ? -j : j;
}

typedef struct { int64_t mean, max, amp, rmax; } KDesign;
/* [phase big/small][kk, kk1] */
static const KDesign kdesign[2][2] = {
	{ { 253988000, 256310000, 1800000, 37 }, { 94724000, 95410000, 500000, 74 } },
	{ { 30998000, 31230000, 180000, 53 }, { 12054000, 12096000, 30000, 88 } },
};

static int64_t kk_dur(Gen *g, int which, int ph, int64_t r, int64_t nr)
{
	const KDesign *d;
	int64_t paired, dsg, p, j;
	if (ph == PH_W1)
		return which ? 23564000 : 63350000;
	if (ph == PH_W2)
		return which ? 3184000 : 7920000;
	d = &kdesign[ph][which];
	paired = nr - (nr & 1);
	if (r >= paired)
		return d->mean;
	dsg = d->rmax % paired;
	p = r >> 1;
	if (p == dsg >> 1) {
		j = d->max - d->mean;
		return d->mean + (r == dsg ? j : -j);
	}
	if (p == (paired >> 1) - 1)
		return d->mean; /* the last pair: no jitter (phase end) */
	j = (int64_t)((double)d->amp * hsym(hash3(g->seed, 500 + (uint64_t)(ph * 2 + which), (uint64_t)p)));
	return d->mean + ((r & 1) ? -j : j);
}

/* ceil-share of total T at position i of N (front-loaded) */
static int64_t cshare(int64_t T, int64_t i, int64_t N)
{
	return (T * (i + 1) + N - 1) / N - (T * i + N - 1) / N;
}

static void noise_share(Gen *g, const NItem *nz, int nn, int64_t i, int64_t N, int64_t getdev)
{
	int k;
	int64_t j, c;
	for (k = 0; k < nn; k++) {
		c = cshare(nz[k].count, i, N);
		for (j = 0; j < c; j++)
			host_call(g, nz[k].name, -1);
	}
	c = cshare(getdev, i, N);
	for (j = 0; j < c; j++)
		host_call(g, N_GETDEVICE, -1);
}

/* HTOD copies of the warmup rounds absorb the HTOD totals */
static const double warm_htod_w[4] = { 1.3, 1.1, 1.0, 0.9 };
static const int64_t warm1_htod_bytes[4] = { 8224, -2, -1, 8 };  /* <0: absorb weight */
static const int64_t warm2_htod_bytes[4] = { -4, -2, -1, 8 };

static void do_round(Gen *g, int ph, int64_t r, int64_t nr, int64_t start,
    int64_t kk_anchor, int final_sync)
{
	const int nn = (int)(sizeof round_noise / sizeof round_noise[0]);
	int i, k;
	int64_t dur, bytes, base, fixed_lat;

	host_wait_until(g, start);
	if (profiler_steps && (ph == PH_BIG || ph == PH_SMALL)) {
		/* the round's period, less 1 us: the steps do not touch */
		int64_t end = start + round_period(ph) - 1000;

		if (end <= g->H)	/* a round that starts late */
			end = g->H + round_period(ph) - 1000;
		Ev e;

		memset(&e, 0, sizeof e);
		e.type = EV_STEP;
		e.pid = HOST_PID;
		e.ts = g->H;
		e.dur = end - g->H;
		e.id = ++nsteps_written;
		emit(g, &e);
	}
	for (i = 0; i < NSLOTS; i++) {
		const Slot *s = &slots[i];
		noise_share(g, round_noise, nn, i, NSLOTS + 1, ROUND_GETDEV);
		/* up to kernel_kernel the python side keeps pace with the
		 * device (launch latency of a few us); kernel_kernel_1 and
		 * everything after it are queued behind the long kernels */
		if (i <= SLOT_KK)
			host_wait_until(g, g->dev_free[0] - (int64_t)(rnd(g) % 2500));
		fixed_lat = 0;
		bytes = 0;
		if (s->name == K_KK || s->name == K_KK1) {
			dur = kk_dur(g, s->name == K_KK1, ph, r, nr);
			if (s->name == K_KK && kk_anchor >= 0) {
				host_wait_until(g, kk_anchor);
				fixed_lat = 6000;
			}
			dev_op(g, s->name, dur, 0, 0, ph, 0, fixed_lat);
			continue;
		}
		switch (ph) {
		case PH_BIG: base = s->big; bytes = s->bbig; break;
		case PH_SMALL: base = s->small; bytes = s->bsmall; break;
		case PH_W1: base = s->big / 4; bytes = s->bbig / 4; break;
		default: base = s->small / 4; bytes = s->bsmall / 4; break;
		}
		if (s->name == C_DTOH_PAGE || s->name == C_DTOH_PIN || s->name == K_SEM)
			base = ph == PH_BIG || ph == PH_W1 ? s->big : s->small;
		if (s->name == C_DTOH_PAGE || s->name == C_DTOH_PIN)
			bytes = ph == PH_BIG || ph == PH_W1 ? s->bbig : s->bsmall;
		if (ph == PH_BIG || ph == PH_SMALL)
			dur = base + anti(g, base * s->jit / 1000, (uint64_t)(i * 8 + ph), r, nr);
		else
			dur = base;
		if (s->name == C_HTOD && (ph == PH_W1 || ph == PH_W2)) {
			int64_t b = (ph == PH_W1 ? warm1_htod_bytes : warm2_htod_bytes)[i];
			dur = absorb_dur(g, C_HTOD, warm_htod_w[i]);
			if (b < 0)
				bytes = absorb_bytes(g, C_HTOD, (double)-b);
			else {
				bytes = b;
				note_fixed(g, C_HTOD, 0, b);
			}
		} else {
			note_fixed(g, s->name, dur, bytes);
		}
		if (i == SLOT_BLOCK1) {
			/* python bookkeeping before the result is fetched */
			g->H += pygap(g, 20 * US, 60 * US);
			if (final_sync)
				sync_designed(g, N_DEVSYNC, 47340000);
			copy_blocking(g, s->name, dur, bytes, ph);
		} else if (i == SLOT_BLOCK2) {
			copy_blocking(g, s->name, dur, bytes, ph);
		} else {
			dev_op(g, s->name, dur, bytes, 0, ph, 0, 0);
		}
	}
	/* after the step: synchronize, bookkeeping */
	if (event_sync && (ph == PH_BIG || ph == PH_SMALL)) {
		/* the host waits for the event after the round's last launch */
		host_call(g, N_EVREC, -1);
		sync_designed(g, N_EVSYNC, 20000);
	}
	for (k = 0; k < ROUND_SYNCS; k++) {
		noise_share(g, round_noise, nn, NSLOTS, NSLOTS + 1, 0);
		host_call(g, N_STREAMSYNC, -1);
	}
	noise_share(g, round_noise, nn, NSLOTS, NSLOTS + 1, ROUND_GETDEV);
}

/* ------------------------------------------------------------------ */
/* Helper work outside the rounds ("extras")                            */

#define F_ORPHAN 1
#define F_FIXED 2
#define F_BLOCK 4

typedef struct {
	int name;
	int64_t count;
	double aw;      /* duration absorber weight */
	double bw;      /* bytes absorber weight (0: fixed bytes) */
	int64_t bytes;
	int flags;
} PItem;

typedef struct {
	const PItem *ops;
	int nops;
	const NItem *noise;
	int nnoise;
	int64_t getdev;
} SegDef;

static int64_t scaled(Gen *g, int64_t c, int flags)
{
	int64_t v;
	if (flags & F_FIXED)
		return c;
	v = round64((double)c * g->scale);
	if ((flags & F_ORPHAN) && v < 1)
		v = 1;
	return v;
}

static void extra_op(Gen *g, const PItem *it, int stream)
{
	int64_t dur = absorb_dur(g, it->name, it->aw);
	int64_t bytes = it->bytes;
	if (it->bw > 0)
		bytes = absorb_bytes(g, it->name, it->bw);
	else
		note_fixed(g, it->name, 0, bytes);
	if (it->flags & F_BLOCK)
		copy_blocking(g, it->name, dur, bytes, PH_EXTRA);
	else
		dev_op(g, it->name, dur, bytes, stream, PH_EXTRA, it->flags & F_ORPHAN, 0);
}

/* burst b of nb of a segment: its share of every op and noise item */
static void burst(Gen *g, const SegDef *sd, int64_t b, int64_t nb)
{
	int64_t m = 0, i = 0, j, c, gd;
	int k;
	NItem nz[32];
	for (k = 0; k < sd->nops; k++)
		m += cshare(scaled(g, sd->ops[k].count, sd->ops[k].flags), b, nb);
	for (k = 0; k < sd->nnoise && k < 32; k++) {
		nz[k].name = sd->noise[k].name;
		nz[k].count = cshare(scaled(g, sd->noise[k].count, 0), b, nb);
	}
	gd = cshare(scaled(g, sd->getdev, 0), b, nb);
	for (k = 0; k < sd->nops; k++) {
		c = cshare(scaled(g, sd->ops[k].count, sd->ops[k].flags), b, nb);
		for (j = 0; j < c; j++, i++) {
			noise_share(g, nz, sd->nnoise, i, m + 1, gd);
			extra_op(g, &sd->ops[k], 0);
		}
	}
	noise_share(g, nz, sd->nnoise, m, m + 1, gd);
}

static int64_t sc(Gen *g, int64_t t)
{
	return (int64_t)((double)t * g->scale);
}

static int64_t nbursts(Gen *g, int64_t n1)
{
	int64_t v = round64((double)n1 * g->scale);
	return v < 1 ? 1 : v;
}

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* --- init: runtime setup, weights, reference computations --- */
static const PItem init_ops[] = {
	{ K_NORMAL, 4, 1.0, 0, 0, 0 },
	{ K_FILLF, 11, 0.3, 0, 0, F_ORPHAN },
	{ K_GEMM_NN, 16, 1.2, 0, 0, 0 },
	{ K_GEMM_CIJK, 14, 0.8, 0, 0, 0 },
	{ K_REORDER, 6, 1.5, 0, 0, 0 },
	{ K_GATHER, 6, 1.0, 0, 0, 0 },
	{ K_INDEXPUT, 8, 1.2, 0, 0, 0 },
	{ K_SCATGATH, 5, 0.8, 0, 0, 0 },
	{ K_SCATDIM2, 4, 2.0, 0, 0, 0 },
	{ K_RSHIST, 2, 0.5, 0, 0, 0 },
	{ K_RSEXSUM, 2, 0.2, 0, 0, 0 },
	{ K_RSONESWEEP, 8, 1.0, 0, 0, 0 },
	{ K_HIST1D, 2, 0.8, 0, 0, 0 },
	{ K_MEMSET, 1, 0.3, 0, 0, 0 },
	{ K_MEMSETD32, 1, 0.4, 0, 0, F_FIXED },
	{ K_SOFTMAX, 1, 1.0, 0, 0, 0 },
	{ K_TOPK2, 1, 1.0, 0, 0, 0 },
	{ C_DTOD, 25, 10.0, 10.0, 0, 0 },
	{ C_DTOD, 4, 1.0, 1.0, 0, 0 },
	{ C_DTOH_PIN, 1, 1.0, 0, 8, 0 },
	{ C_DTOH_PIN, 1, 1.0, 0, 4, 0 },
};
static const NItem init_noise[] = {
	{ N_DEVCOUNT, 1 }, { N_SETDEV, 1 }, { N_PROPS, 2 }, { N_DEVATTR, 36 },
	{ N_STRCREATE, 2 }, { N_EVCREATE, 16 }, { N_FUNCATTR, 24 },
	{ N_MALLOC, 30 }, { N_FREE, 10 }, { N_HOSTALLOC, 6 },
	{ N_ISCAPT, 11 }, { N_LASTERR, 11 },
};
static const SegDef seg_init_def = { init_ops, NELEM(init_ops), init_noise, NELEM(init_noise), 4000 };

#define INIT_BURSTS 12
#define INIT_COPY INT64_C(330000000)
#define INIT_LEN (INT64_C(13500) * MS)
static const int64_t init_sync_ns[4] = { 9410000, 5230000, 3340000, 2610000 };

static void seg_init(Gen *g)
{
	int64_t nb = nbursts(g, INIT_BURSTS), b;
	int k;
	for (b = 0; b < nb; b++) {
		host_wait_until(g, sc(g, INIT_LEN) * b / nb);
		burst(g, &seg_init_def, b, nb);
		if (b == (nb > 2 ? 2 : nb - 1)) {
			/* five normal-init kernels on stream 1, overlapping a long
			 * scatter on stream 0 (busy time is the union) */
			PItem big = { K_SCATDIM2, 1, 4.0, 0, 0, F_FIXED };
			PItem ov = { K_NORMAL, 1, 1.0, 0, 0, F_FIXED };
			host_wait_until(g, max64(g->dev_free[0], g->dev_free[1]) + 50 * US);
			extra_op(g, &big, 0);
			for (k = 0; k < 5; k++)
				extra_op(g, &ov, 1);
		}
		if (b == (nb > 4 ? 4 : nb - 1)) {
			/* the largest copy of the trace: 1.879 GB of expert weights */
			note_fixed(g, C_DTOD, 3100000, INT64_C(1879048192));
			dev_op(g, C_DTOD, 3100000, INT64_C(1879048192), 0, PH_EXTRA, 0, 0);
		}
		if (b == nb * 7 / INIT_BURSTS) {
			/* a checkpoint check: the host waits in a pageable copy */
			copy_designed(g, C_DTOH_PAGE, absorb_dur(g, C_DTOH_PAGE, 1.0), 64, INIT_COPY);
			note_fixed(g, C_DTOH_PAGE, 0, 64);
		}
		for (k = 0; k < 4; k++)
			if (b == nb * (3 + 3 * k - (k == 3)) / INIT_BURSTS)
				sync_designed(g, N_STREAMSYNC, init_sync_ns[k]);
	}
}

/* --- interludes between the warmups and the big phase --- */
static const PItem inter1_ops[] = {
	{ K_GATHER, 3, 1.0, 0, 0, 0 }, { K_INDEXPUT, 2, 1.2, 0, 0, 0 },
	{ K_SCATGATH, 3, 0.8, 0, 0, 0 },
	{ K_RSONESWEEP, 2, 1.0, 0, 0, 0 }, { K_HIST1D, 1, 0.8, 0, 0, 0 },
	{ K_MEMSET, 1, 0.3, 0, 0, 0 },
	{ K_NORMAL, 2, 1.0, 0, 0, 0 },
	{ K_GEMM_NN, 2, 1.2, 0, 0, 0 },
	{ C_DTOD, 4, 1.0, 1.0, 0, 0 },
	{ C_DTOH_PIN, 1, 1.0, 0, 4, 0 },
};
static const PItem inter2_ops[] = {
	{ K_GATHER, 3, 1.0, 0, 0, 0 }, { K_INDEXPUT, 2, 1.2, 0, 0, 0 },
	{ K_SCATGATH, 3, 0.8, 0, 0, 0 },
	{ K_RSONESWEEP, 2, 1.0, 0, 0, 0 }, { K_HIST1D, 1, 0.8, 0, 0, 0 },
	{ K_MEMSET, 1, 0.3, 0, 0, 0 },
	{ K_NORMAL, 2, 1.0, 0, 0, 0 },
	{ K_GEMM_NN, 2, 1.2, 0, 0, 0 },
	{ C_DTOD, 4, 1.0, 1.0, 0, 0 },
	{ C_DTOH_PIN, 1, 1.0, 0, 2, 0 },
};
static const NItem inter_noise[] = {
	{ N_MALLOC, 2 }, { N_FREE, 2 }, { N_ISCAPT, 3 }, { N_LASTERR, 3 },
};
static const SegDef seg_inter1_def = { inter1_ops, NELEM(inter1_ops), inter_noise, NELEM(inter_noise), 900 };
static const SegDef seg_inter2_def = { inter2_ops, NELEM(inter2_ops), inter_noise, NELEM(inter_noise), 900 };

static void seg_inter(Gen *g, const SegDef *sd, int64_t t0, int64_t step, int sync_b, int64_t sync_d)
{
	int64_t nb = nbursts(g, 4), b;
	for (b = 0; b < nb; b++) {
		host_wait_until(g, sc(g, t0 + step * 4 * b / nb));
		burst(g, sd, b, nb);
		if (b == nb * sync_b / 4)
			sync_designed(g, N_STREAMSYNC, sync_d);
	}
}

/* --- gap between the big and the small phase: case switch and check --- */
static const PItem gap_ops[] = {
	{ K_REORDER, 2, 1.5, 0, 0, 0 }, { K_SCATDIM2, 2, 2.0, 0, 0, 0 },
	{ K_GATHER, 2, 1.0, 0, 0, 0 },
	{ K_RSONESWEEP, 4, 1.0, 0, 0, 0 },
	{ K_NORMAL, 2, 1.0, 0, 0, 0 },
	{ K_SOFTMAX, 1, 1.0, 0, 0, 0 }, { K_TOPK2, 1, 1.0, 0, 0, 0 },
	{ K_GEMM_CIJK, 4, 0.8, 0, 0, 0 },
	{ C_DTOD, 4, 1.0, 1.0, 0, 0 },
};
static const NItem gap_noise[] = {
	{ N_MALLOC, 8 }, { N_FREE, 14 }, { N_ISCAPT, 6 }, { N_LASTERR, 6 },
};
static const SegDef seg_gap_def = { gap_ops, NELEM(gap_ops), gap_noise, NELEM(gap_noise), 1400 };
#define GAP_FIRST (30 * MS)
#define GAP_LEN (4200 * MS)
#define GAP_COPY2 INT64_C(330000000) /* second designed blocking copy */


static void seg_gap(Gen *g, int64_t t0)
{
	int64_t nb = nbursts(g, 5), b;
	for (b = 0; b < nb; b++) {
		host_wait_until(g, t0 + sc(g, GAP_FIRST + GAP_LEN * b / nb));
		burst(g, &seg_gap_def, b, nb);
		if (b == 0)
			host_call(g, N_DEVSYNC, 366880000);
		if (b == nb * 1 / 5)
			host_call(g, N_STREAMSYNC, 82880000);
		if (b == nb * 2 / 5) {
			/* the longest mcMemcpyAsync of the trace, 375.58 ms */
			copy_designed(g, C_DTOH_PAGE, absorb_dur(g, C_DTOH_PAGE, 1.0), 24, 375580000);
			note_fixed(g, C_DTOH_PAGE, 0, 24);
		}
		if (b == nb * 3 / 5) {
			copy_designed(g, C_DTOH_PAGE, absorb_dur(g, C_DTOH_PAGE, 1.0), 16, GAP_COPY2);
			note_fixed(g, C_DTOH_PAGE, 0, 16);
		}
	}
}

/* --- teardown --- */
static const NItem tear_noise[] = {
	{ N_FREE, 12 }, { N_STRDESTROY, 2 }, { N_EVDESTROY, 16 }, { N_FREEHOST, 5 },
};
static const SegDef seg_tear_def = { NULL, 0, tear_noise, NELEM(tear_noise), 303 };

#define MEMCPY_TARGET INT64_C(46540000000)

static void seg_teardown(Gen *g, int64_t t0, int64_t t_end)
{
	int64_t nb = nbursts(g, 2), b, D, cdur, dfin;
	for (b = 0; b < nb; b++) {
		host_wait_until(g, t0 + sc(g, (10 + 290 * b / nb) * MS));
		if (b == 0)
			sync_designed(g, N_STREAMSYNC, 412940);
		burst(g, &seg_tear_def, b, nb);
		if (b == 0) {
			/* final results: at scale 1 this copy makes the
			 * mcMemcpyAsync host total exactly the seed's 46.54 s */
			cdur = absorb_dur(g, C_DTOH_PAGE, 1.0);
			note_fixed(g, C_DTOH_PAGE, 0, 8);
			D = 240 * MS;
			if (g->scale == 1.0 && !g->calib)
				D = MEMCPY_TARGET - g->host_sum[N_MEMCPY];
			if (D < cdur + 20 * US)
				D = cdur + 20 * US;
			if (D > 375 * MS)
				D = 375 * MS;
			g->teardown_copy = D;
			copy_designed(g, C_DTOH_PAGE, cdur, 8, D);
		}
	}
	/* the last event of the trace ends exactly at t_end */
	dfin = host_regular(g, N_FREEHOST);
	host_wait_until(g, t_end - dfin);
	host_call(g, N_FREEHOST, dfin);
}

/* ------------------------------------------------------------------ */
/* The whole timeline                                                   */

/* anchors at scale 1, ns from the origin */
#define W1_START INT64_C(14200000000)
#define W1_KK_LAUNCH INT64_C(14268574000)  /* + 17.42 ms + 6 us = 14.286 s */
#define MODLOAD_AT INT64_C(13620000000)
#define INTER1_AT INT64_C(14500000000)
#define W2_START INT64_C(20754500000)
#define W2_KK_LAUNCH INT64_C(20759994000)  /* + 6 us = 20.760 s */
#define INTER2_AT INT64_C(20900000000)
#define BIG_DELTA INT64_C(380654000)
#define SMALL_DELTA INT64_C(51944972)
#define PRE_BIG INT64_C(12350000)     /* round start -> kk start (measured) */
#define PRE_SMALL INT64_C(3822000)
#define BIG_START (INT64_C(26570000000) - PRE_BIG)
#define SMALL_START (INT64_C(74520000000) - PRE_SMALL)
#define BIG_END1 (BIG_START + 110 * BIG_DELTA)
#define SMALL_END1 (SMALL_START + 110 * SMALL_DELTA)
#define SPAN1 INT64_C(80980352417)

static int64_t round_period(int ph)
{
	return ph == PH_BIG ? BIG_DELTA : SMALL_DELTA;
}

static int64_t nrounds(double scale)
{
	int64_t n = round64(110.0 * scale);
	return n < 2 ? 2 : n;
}

/* --ranks: the end of each steady round's device work, recorded by a
 * first run of the generator (see "Ranks" below) */
static int64_t *bounds;
static size_t nbounds;
static int record_bounds;

static void bound_add(Gen *g)
{
	if (!record_bounds)
		return;
	bounds = realloc(bounds, (nbounds + 2) * sizeof *bounds);
	if (!bounds) {
		fputs("gentrace: out of memory\n", stderr);
		exit(1);
	}
	bounds[0] = 0;
	bounds[++nbounds] = max64(g->dev_free[0], g->dev_free[1]);
}

static void generate(Gen *g)
{
	int64_t r, a_big, e_big, a_small, e_small;

	g->nb = nrounds(g->scale);
	g->ns = nrounds(g->scale);
	seg_init(g);
	host_wait_until(g, sc(g, MODLOAD_AT));
	host_call(g, N_MODLOAD, 251400000);
	do_round(g, PH_W1, 0, 1, sc(g, W1_START), sc(g, W1_KK_LAUNCH), 0);
	seg_inter(g, &seg_inter1_def, INTER1_AT, 1500 * MS, 2, 1370000);
	do_round(g, PH_W2, 0, 1, sc(g, W2_START), sc(g, W2_KK_LAUNCH), 0);
	seg_inter(g, &seg_inter2_def, INTER2_AT, 1350 * MS, 1, 870000);
	a_big = sc(g, BIG_START);
	for (r = 0; r < g->nb; r++) {
		do_round(g, PH_BIG, r, g->nb, a_big + r * BIG_DELTA, -1, 0);
		bound_add(g);
	}
	e_big = a_big + g->nb * BIG_DELTA;
	seg_gap(g, e_big);
	a_small = e_big + sc(g, SMALL_START - BIG_END1);
	for (r = 0; r < g->ns; r++) {
		do_round(g, PH_SMALL, r, g->ns, a_small + r * SMALL_DELTA, -1, r == g->ns - 1);
		bound_add(g);
	}
	e_small = a_small + g->ns * SMALL_DELTA;
	seg_teardown(g, e_small, e_small + sc(g, SPAN1 - SMALL_END1));
}

static void gen_init(Gen *g, double scale, uint64_t seed, int calib, SinkFn sink)
{
	memset(g, 0, sizeof *g);
	g->scale = scale;
	g->seed = seed;
	g->rng = mix64(seed ^ UINT64_C(0x5eed));
	g->calib = calib;
	g->next_id = 1;
	g->sink = sink;	nsteps_written = 0;
}

/* ------------------------------------------------------------------ */
/* Specials and calibration                                             */

static void null_sink(Gen *g, const Ev *e) { (void)g; (void)e; }

/* split total into n values: v[0] = first, the rest by decreasing
 * weights, quantized to q, the last one taking the remainder */
static void split_specials(int64_t *v, int n, int64_t total, int64_t first, int64_t q, int flat)
{
	double wsum = 0, w;
	int64_t rest = total - first, acc = 0;
	int k;
	v[0] = first;
	for (k = 1; k < n; k++)
		wsum += flat ? 0.8 + 0.04 * (double)((k * 7) % 11) : 1.0 / (1.0 + 0.3 * (double)k);
	for (k = 1; k < n; k++) {
		w = flat ? 0.8 + 0.04 * (double)((k * 7) % 11) : 1.0 / (1.0 + 0.3 * (double)k);
		if (k == n - 1)
			v[k] = rest - acc;
		else
			v[k] = round64((double)rest * w / wsum / (double)q) * q;
		acc += v[k];
	}
}

static void setup_specials(void)
{
	int64_t v[NNAMES];
	int idx[NNAMES], n = 0, k, i;

	/* mcGetDevice: 140,703 calls, 27.50 ms, median 180 ns, max 28 us */
	split_specials(spec_getdev, GD_NSPEC,
	    27500000 - 180 * (140703 - GD_NSPEC), 28000, 10, 1);

	/* mcLaunchKernel: 10,754 calls, 98.81 ms, median 4.87 us,
	 * max 7.82 ms: the first launch of each kernel name is slow */
	idx[n++] = K_NORMAL;
	for (i = 0; i < NNAMES; i++)
		if (i != K_NORMAL && names[i].pid == 2 && names[i].api == N_LAUNCH)
			idx[n++] = i;
	split_specials(v, n, 98810000 - 4870 * (10754 - n), 7820000, 10, 0);
	for (k = 0; k < n; k++)
		spec_first[idx[k]] = v[k];

	/* mcModuleLaunchKernel: 704 calls, 22.15 ms, median 6.31 us,
	 * max 17.42 ms (the first kernel_kernel launch loads the module) */
	spec_first[K_KK] = 17420000;
	spec_first[K_KK1] = 180000;
	spec_first[K_GEMM_NN] = 71310;
	spec_first[K_GEMM_CIJK] = 45000;
	spec_first[K_GEMM_RT] = 23000;
}

static void calibrate(uint64_t seed)
{
	Gen g;
	int t;
	gen_init(&g, 1.0, seed, 1, null_sink);
	generate(&g);
	for (t = 0; t < NTGT; t++) {
		unit_dur[t] = g.w_dur[t] > 0 ? ((double)tgt_dur[t] - g.fixed_dur[t]) / g.w_dur[t] : 0;
		unit_bytes[t] = g.w_bytes[t] > 0 ? ((double)tgt_bytes[t] - g.fixed_bytes[t]) / g.w_bytes[t] : 0;
		if (getenv("GENTRACE_DEBUG"))
			fprintf(stderr, "calib %d: fixed %.0f w %.2f unit %.1f | bytes fixed %.0f w %.2f unit %.1f\n",
			    t, g.fixed_dur[t], g.w_dur[t], unit_dur[t],
			    g.fixed_bytes[t], g.w_bytes[t], unit_bytes[t]);
	}
}

/* ------------------------------------------------------------------ */
/* Output                                                               */

enum { FORM_OBJECT, FORM_ARRAY, FORM_NDJSON };
enum { LAYOUT_TIME, LAYOUT_SECTIONS, LAYOUT_SHUFFLE };

static struct {
	double scale;
	uint64_t seed;
	int form, indent, unit_us, layout, keys_around, grid_string;
	int no_close, trailing_comma, string_ts, stats;
	int64_t cut;
	int be;		/* X events as B/E pairs; be_half: which one is written */
} opt = { 1.0, 1, FORM_OBJECT, 0, 0, LAYOUT_TIME, 0, 0, 0, 0, 0, 0, -1, 0 };
static int be_half;

/* --ranks (see "Ranks" below) */
static struct {
	int n, rank;                    /* n > 0: --ranks, writing rank */
	int slow;                       /* --slow-rank, or -1 */
	int64_t num, den;               /* --slow-factor as num / den */
	int64_t offmax;                 /* --clock-offset */
	int64_t *seg;                   /* seg[j]: where segment j starts */
	size_t next;                    /* the next collective, from 1 */
} rk = { 0, 0, -1, 1, 1, 0, NULL, 1 };

#define OBUF_SIZE (1 << 20)
static char *obuf;
static size_t olen;
static uint64_t owritten;
static int odiscard;

static void die_write(void)
{
	fprintf(stderr, "gentrace: write error: %s\n", strerror(errno));
	exit(1);
}

static void out_flush(void)
{
	size_t n = olen;
	if (odiscard) {
		owritten += n;
		olen = 0;
		return;
	}
	if (opt.cut >= 0 && owritten + n > (uint64_t)opt.cut)
		n = (size_t)((uint64_t)opt.cut - owritten);
	if (n && fwrite(obuf, 1, n, stdout) != n)
		die_write();
	owritten += n;
	olen = 0;
	if (opt.cut >= 0 && owritten >= (uint64_t)opt.cut) {
		if (fflush(stdout) != 0)
			die_write();
		exit(0);
	}
}

static void oput(const char *s, size_t n)
{
	if (olen + n > OBUF_SIZE)
		out_flush();
	memcpy(obuf + olen, s, n);
	olen += n;
}

static void oputc(char c)
{
	if (olen + 1 > OBUF_SIZE)
		out_flush();
	obuf[olen++] = c;
}

static void oputs(const char *s) { oput(s, strlen(s)); }

static void oput_u64(uint64_t v)
{
	static const char dig2[] =
	    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	    "8081828384858687888990919293949596979899";
	char b[24];
	int i = 24;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		b[--i] = dig2[2 * r + 1];
		b[--i] = dig2[2 * r];
	}
	if (v >= 10) {
		b[--i] = dig2[2 * v + 1];
		b[--i] = dig2[2 * v];
	} else
		b[--i] = (char)('0' + v);
	oput(b + i, (size_t)(24 - i));
}

static void oput_i64(int64_t v)
{
	if (v < 0) {
		oputc('-');
		oput_u64((uint64_t)0 - (uint64_t)v);
	} else
		oput_u64((uint64_t)v);
}

/* a time value (ts or dur) in ns: ns integer, or us with up to three
 * decimals, exactly ns/1000 as decimal text */
static void oput_time(int64_t ns)
{
	if (opt.string_ts)
		oputc('"');
	if (!opt.unit_us) {
		oput_i64(ns);
	} else {
		uint64_t u = (uint64_t)ns;
		uint64_t ip = u / 1000, fr = u % 1000;
		char f[4];
		int n = 3;
		oput_u64(ip);
		if (fr) {
			f[0] = (char)('0' + fr / 100);
			f[1] = (char)('0' + fr / 10 % 10);
			f[2] = (char)('0' + fr % 10);
			while (n > 0 && f[n - 1] == '0')
				n--;
			oputc('.');
			oput(f, (size_t)n);
		}
	}
	if (opt.string_ts)
		oputc('"');
}

static void oput_spaces(int n)
{
	static const char sp[] = "                                                                ";
	while (n > 0) {
		int k = n < 64 ? n : 64;
		oput(sp, (size_t)k);
		n -= k;
	}
}

/* a small writer: compact, or python json.dumps(indent=N) layout */
static struct { int depth; unsigned char first[16]; } jw;

static void jw_nl(void)
{
	if (opt.indent) {
		oputc('\n');
		oput_spaces(opt.indent * jw.depth);
	}
}
static void jw_item(void)
{
	if (!jw.first[jw.depth])
		oputc(',');
	jw.first[jw.depth] = 0;
	jw_nl();
}
static void jw_open(char c)
{
	oputc(c);
	jw.depth++;
	jw.first[jw.depth] = 1;
}
static void jw_close(char c)
{
	int empty = jw.first[jw.depth];
	jw.depth--;
	if (!empty)
		jw_nl();
	oputc(c);
}
static void jw_key(const char *k)
{
	jw_item();
	oputc('"');
	oputs(k);
	if (opt.indent)
		oput("\": ", 3);
	else
		oput("\":", 2);
}
static void jw_str(const char *k, const char *v)
{
	jw_key(k);
	oputc('"');
	oputs(v);
	oputc('"');
}
static void jw_int(const char *k, int64_t v)
{
	jw_key(k);
	oput_i64(v);
}
static void jw_time(const char *k, int64_t rel)
{
	jw_key(k);
	oput_time(rel);
}
static void jw_dim3(const char *k, int x, int y, int z)
{
	jw_key(k);
	if (opt.grid_string) {
		oputc('"');
		oputc('(');
		oput_i64(x);
		oput(", ", 2);
		oput_i64(y);
		oput(", ", 2);
		oput_i64(z);
		oputc(')');
		oputc('"');
		return;
	}
	jw_open('[');
	jw_item();
	oput_i64(x);
	jw_item();
	oput_i64(y);
	jw_item();
	oput_i64(z);
	jw_close(']');
}

static void kernel_cfg(const Ev *e, int *gx, int *gy)
{
	const NameDef *d = &names[e->name];
	if (e->name == K_KK || e->name == K_KK1) {
		int ph = e->phase < 4 ? e->phase : 0;
		*gx = kk_grid[e->name == K_KK1][ph][0];
		*gy = kk_grid[e->name == K_KK1][ph][1];
		return;
	}
	*gy = d->gy;
	switch (e->phase) {
	case PH_SMALL: *gx = (d->gx + 1) / 2; break;
	case PH_W1: *gx = (d->gx + 3) / 4; break;
	case PH_W2: *gx = (d->gx + 7) / 8; break;
	default: *gx = d->gx; break;
	}
}

/* --slow-kernel, --add-kernel, --drop-kernel: a second run of the same work */
static struct {
	const char *slow;               /* its events' dur x num / den */
	int64_t num, den;
	const char *add;                /* written after every ADD_EVERY-th kernel */
	const char *drop;               /* its events left out */
	uint64_t nkern;                 /* kernels written */
	int adding;                     /* writing the added kernel */
} kd = { NULL, 1, 1, NULL, NULL, 0, 0 };
#define ADD_EVERY 100
#define ADD_DUR 1000
#define ADD_TID 7

static int is_named(const Ev *e, const char *name)
{
	return name != NULL && (e->type == EV_X || e->type == EV_COLL) &&
	    strcmp(e->type == EV_COLL ? COLL_NAME : names[e->name].name, name) == 0;
}

/* dur as written: --slow-kernel's stretched, rounded down */
static int64_t dur_of(const Ev *e)
{
	if (kd.adding || !is_named(e, kd.slow))
		return e->dur;
	return e->dur / kd.den * kd.num + e->dur % kd.den * kd.num / kd.den;
}

static void write_event(const Ev *e, int depth)
{
	jw.depth = depth;
	jw_open('{');
	switch (e->type) {
	case EV_M:
		jw_str("name", "process_name");
		jw_str("ph", "M");
		jw_int("pid", 2);
		jw_int("tid", 0);
		jw_key("args");
		jw_open('{');
		jw_str("name", "MetaX C500");
		jw_close('}');
		break;
	case EV_COLL:
		jw_str("name", COLL_NAME);
		jw_str("ph", "X");
		jw_int("pid", 2);
		jw_int("tid", COLL_TID);
		jw_time("ts", ORIGIN + e->ts);
		jw_time("dur", e->dur);
		jw_key("args");
		jw_open('{');
		jw_dim3("grid", 4, 1, 1);
		jw_dim3("block", 512, 1, 1);
		jw_close('}');
		break;
	case EV_STEP: {
		char nm[40];

		snprintf(nm, sizeof nm, "ProfilerStep#%lld", (long long)e->id);
		jw_str("name", nm);
		jw_str("ph", "X");
		jw_int("pid", e->pid);
		jw_int("tid", HOST_TID);
		jw_time("ts", ORIGIN + e->ts);
		jw_time("dur", e->dur);
		jw_str("cat", "user_annotation");
		break;
	}
	case EV_S:
	case EV_F:
		jw_str("name", "flow");
		jw_str("ph", e->type == EV_S ? "s" : "f");
		if (e->type == EV_F)
			jw_str("bp", "e");
		jw_int("id", e->id);
		jw_int("pid", e->pid);
		jw_int("tid", e->pid == HOST_PID ? HOST_TID : e->tid);
		jw_time("ts", ORIGIN + e->ts);
		jw_str("cat", "flow");
		break;
	default: {
		const NameDef *d = &names[e->name];
		if (be_half == 2) {
			/* the E of a B/E pair: where and when it ends */
			jw_str("ph", "E");
			jw_int("pid", e->pid);
			jw_int("tid", e->pid == HOST_PID ? HOST_TID : e->tid);
			jw_time("ts", ORIGIN + e->ts + dur_of(e));
			break;
		}
		jw_str("name", kd.adding ? kd.add : d->name);
		jw_str("ph", be_half == 1 ? "B" : "X");
		jw_int("pid", e->pid);
		jw_int("tid", e->pid == HOST_PID ? HOST_TID : e->tid);
		jw_time("ts", ORIGIN + e->ts);
		if (be_half == 0)
			jw_time("dur", dur_of(e));
		jw_key("args");
		jw_open('{');
		jw_int("co_id", e->id);
		if (e->pid == 2) {
			int gx, gy;
			kernel_cfg(e, &gx, &gy);
			jw_dim3("grid", gx, gy, 1);
			jw_dim3("block", d->bx, 1, 1);
			jw_int("registers_per_thread", d->regs);
			jw_int("dynamic_shared", d->dyn);
			jw_int("static_shared", d->stat);
		} else if (e->pid == 3) {
			jw_int("bytes", e->bytes);
		}
		jw_close('}');
		break;
	}
	}
	jw_close('}');
}

static uint64_t nwritten_events;

static void out_one(const Ev *e);

/*
 * --metrics FILE: a metric log of the trace, sampled every
 * --metrics-period ns from ORIGIN to the trace's end.  A sample's values
 * depend only on which custom kernel runs on the device at its time:
 * high bandwidth in kernel_kernel_1, middling in kernel_kernel, low
 * elsewhere (with a small integer wobble), so mct-metrics --join must
 * put kernel_kernel_1 on top.  Forms: nvidia (nvidia-smi --format=csv,
 * wall times: ORIGIN is METRICS_WALL0) and csv (trace ns, a few us of
 * jitter).
 */
#define METRICS_WALL0_S INT64_C(1796194800)	/* 2026/12/02 07:00:00 UTC */
static struct {
	const char *path;
	int nvidia;		/* else csv */
	int64_t period;
	struct mspan { int64_t ts, end; int kk1; } *v;
	size_t n, cap;
	int64_t end;		/* the trace's last end, relative */
} mlog = { NULL, 1, 1000000, NULL, 0, 0, 0 };

static void metrics_note(const Ev *e)
{
	if (e->type != EV_M && e->ts + e->dur > mlog.end)
		mlog.end = e->ts + e->dur;
	if (e->type != EV_X || (e->name != K_KK && e->name != K_KK1))
		return;
	if (mlog.n == mlog.cap) {
		mlog.cap = mlog.cap ? mlog.cap * 2 : 1024;
		mlog.v = realloc(mlog.v, mlog.cap * sizeof(*mlog.v));
		if (mlog.v == NULL) {
			fputs("gentrace: out of memory\n", stderr);
			exit(1);
		}
	}
	mlog.v[mlog.n].ts = e->ts;
	mlog.v[mlog.n].end = e->ts + e->dur;
	mlog.v[mlog.n++].kk1 = e->name == K_KK1;
}

static int mspan_cmp(const void *a, const void *b)
{
	const struct mspan *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void metrics_write(void)
{
	FILE *f;
	size_t at = 0;
	int64_t t, k;

	if (mlog.path == NULL)
		return;
	if ((f = fopen(mlog.path, "w")) == NULL) {
		fprintf(stderr, "gentrace: %s: %s\n", mlog.path, strerror(errno));
		exit(2);
	}
	qsort(mlog.v, mlog.n, sizeof(*mlog.v), mspan_cmp);
	fputs(mlog.nvidia ? "timestamp, index, clocks.current.sm [MHz], "
	    "utilization.memory [%], memory.used [MiB]\n" :
	    "time_ns,gpu,hbm_bw [GB/s],sm_clock [MHz]\n", f);
	for (k = 0, t = 0; t <= mlog.end; k++, t = k * mlog.period) {
		int64_t ts = t, bw, util, clk;
		int in = 0;	/* 0 none, 1 kernel_kernel, 2 kernel_kernel_1 */

		if (!mlog.nvidia && t > 0)
			ts += (int64_t)(mix64((uint64_t)k) % 5000);	/* jitter */
		while (at < mlog.n && mlog.v[at].end <= ts)
			at++;
		if (at < mlog.n && mlog.v[at].ts <= ts)
			in = mlog.v[at].kk1 ? 2 : 1;
		bw = in == 2 ? 1600 + k * 53 % 200 : in == 1 ? 300 + k * 31 % 100 :
		    50 + k * 17 % 40;
		util = in == 2 ? 88 + k % 7 : in == 1 ? 20 + k % 5 : 3 + k % 3;
		clk = in == 1 ? 1500 - k % 3 * 10 : 1600;
		if (mlog.nvidia) {
			time_t w = (time_t)(METRICS_WALL0_S + ts / 1000000000);
			struct tm tm;
			gmtime_r(&w, &tm);
			fprintf(f, "%04d/%02d/%02d %02d:%02d:%02d.%03d, 0, %d MHz, "
			    "%d %%, 40960 MiB\n", tm.tm_year + 1900, tm.tm_mon + 1,
			    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			    (int)(ts % 1000000000 / 1000000), (int)clk, (int)util);
		} else
			fprintf(f, "%" PRId64 ",0,%d,%d\n", ORIGIN + ts, (int)bw,
			    (int)clk);
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "gentrace: %s: write error\n", mlog.path);
		exit(1);
	}
}

/* An event; with --be an X event is a B then its E. */
static void out_event_as(const Ev *e);

static void out_event(const Ev *e)
{
	Ev a;

	if (is_named(e, kd.drop))
		return;
	out_event_as(e);
	if (kd.add == NULL || e->type != EV_X || e->pid != 2 ||
	    ++kd.nkern % ADD_EVERY != 0)
		return;
	a = *e;
	a.ts = e->ts + dur_of(e);
	a.dur = ADD_DUR;
	a.tid = ADD_TID;
	kd.adding = 1;
	out_event_as(&a);
	kd.adding = 0;
}

static void out_event_as(const Ev *e)
{
	if (mlog.path != NULL)
		metrics_note(e);
	if (!opt.be || e->type != EV_X) {
		out_one(e);
		return;
	}
	be_half = 1;
	out_one(e);
	be_half = 2;
	out_one(e);
	be_half = 0;
}

static void out_one(const Ev *e)
{
	switch (opt.form) {
	case FORM_NDJSON:
		write_event(e, 0);
		oputc('\n');
		break;
	case FORM_ARRAY:
		if (nwritten_events)
			oputc(',');
		oputc('\n');
		oput_spaces(opt.indent);
		write_event(e, 1);
		break;
	default:
		if (nwritten_events)
			oputc(',');
		oputc('\n');
		oput_spaces(2 * opt.indent);
		write_event(e, 2);
		break;
	}
	nwritten_events++;
}

static void out_prefix(void)
{
	if (opt.form == FORM_NDJSON)
		return;
	if (opt.form == FORM_ARRAY) {
		oputc('[');
		return;
	}
	jw.depth = 0;
	jw_open('{');
	if (opt.keys_around) {
		jw_int("schemaVersion", 1);
		jw_key("deviceProperties");
		jw_open('[');
		jw_item();
		jw_open('{');
		jw_int("id", 0);
		jw_str("name", "C500");
		jw_int("totalGlobalMem", INT64_C(68719476736));
		jw_close('}');
		jw_close(']');
	}
	jw_key("traceEvents");
	oputc('[');
}

/* after the last event: the newline, and unless --no-close the closing
 * bracket and (object form) the keys after traceEvents */
static void out_suffix(void)
{
	if (opt.form == FORM_NDJSON)
		return;
	if (opt.trailing_comma)
		oputc(',');
	oputc('\n');
	if (opt.no_close)
		return;
	if (opt.form == FORM_ARRAY) {
		oputs("]\n");
		return;
	}
	oput_spaces(opt.indent);
	oputc(']');
	jw.depth = 1;
	jw.first[1] = 0;
	jw_str("displayTimeUnit", opt.unit_us ? "ms" : "ns");
	jw_key("otherData");
	jw_open('{');
	jw_str("tracer", "mcTracer");
	jw_str("version", "2.1.0");
	jw_key("device");
	jw_open('{');
	jw_str("name", "C500");
	jw_int("count", 1);
	jw_close('}');
	jw_close('}');
	if (rk.n > 0) {
		jw_key("distributedInfo");
		jw_open('{');
		jw_int("rank", rk.rank);
		jw_int("world_size", rk.n);
		jw_close('}');
	}
	jw_close('}');
	oputc('\n');
}

/* ------------------------------------------------------------------ */
/* Ordering: heap (time), section filter, shuffle windows               */

static Ev *heap;
static size_t hn, hcap;
static int section_pass = -1; /* sections: 0 host, 1 kernels, 2 copies */
static Ev *win;
static size_t wn;
static uint64_t shuf_rng;
static void (*deliver_hook)(const Ev *);

static int ev_before(const Ev *a, const Ev *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static void heap_push(const Ev *e)
{
	size_t i;
	if (hn == hcap) {
		hcap = hcap ? hcap * 2 : 1024;
		heap = realloc(heap, hcap * sizeof *heap);
		if (!heap) {
			fprintf(stderr, "gentrace: out of memory\n");
			exit(1);
		}
	}
	i = hn++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ev_before(e, &heap[p]))
			break;
		heap[i] = heap[p];
		i = p;
	}
	heap[i] = *e;
}

static void heap_pop(Ev *out)
{
	Ev last;
	size_t i = 0;
	*out = heap[0];
	last = heap[--hn];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= hn)
			break;
		if (c + 1 < hn && ev_before(&heap[c + 1], &heap[c]))
			c++;
		if (!ev_before(&heap[c], &last))
			break;
		heap[i] = heap[c];
		i = c;
	}
	if (hn)
		heap[i] = last;
}

static void win_flush(void)
{
	size_t i;
	for (i = wn; i > 1; i--) {
		size_t j;
		Ev t;
		shuf_rng += UINT64_C(0x9e3779b97f4a7c15);
		j = (size_t)(mix64(shuf_rng) % i);
		t = win[i - 1];
		win[i - 1] = win[j];
		win[j] = t;
	}
	for (i = 0; i < wn; i++)
		out_event(&win[i]);
	wn = 0;
}

static void deliver_one(const Ev *e)
{
	if (section_pass >= 0 && e->pid != section_pass + 1)
		return;
	if (deliver_hook)
		deliver_hook(e);
	if (opt.layout == LAYOUT_SHUFFLE) {
		win[wn++] = *e;
		if (wn == WINDOW)
			win_flush();
		return;
	}
	out_event(e);
}

/* ------------------------------------------------------------------ */
/* Ranks: --ranks N writes one trace a rank.  Every rank runs the same
 * trace through a map of its own: the time between two round ends
 * (bounds[], the end of each steady round's device work; bounds[0] = 0)
 * is a segment, stretched on a rank by its factor (--slow-factor on
 * --slow-rank, else 1).  After each round a collective runs on every
 * rank: it starts when the rank's round ends and ends, on all ranks at
 * once, C after the slowest rank's; the next segment starts there.  So
 * the fast ranks wait in the collective, the slow one comes last (its
 * collective lasts C).  Then the rank's clock offset is added.  The map is
 * monotone: nothing on a lane comes to overlap, and time order stays. */

#define COLL_C INT64_C(100000)          /* a collective's own length */


static int64_t stretch(int64_t x, int64_t num, int64_t den)
{
	return x / den * num + x % den * num / den;
}

/* the rank's clock offset: in [-offmax, offmax], by seed and rank */
static int64_t rank_offset(int r)
{
	if (rk.offmax == 0)
		return 0;
	return (int64_t)(hash3(opt.seed, (uint64_t)r, 0xc10c) %
	    (uint64_t)(2 * rk.offmax + 1)) - rk.offmax;
}

/* segment starts: the slowest rank's stretch, plus a collective */
static void rank_segments(void)
{
	int64_t num = rk.num > rk.den ? rk.num : rk.den;
	size_t j;

	rk.seg = malloc((nbounds + 1) * sizeof *rk.seg);
	if (!rk.seg) {
		fputs("gentrace: out of memory\n", stderr);
		exit(1);
	}
	rk.seg[0] = 0;
	for (j = 1; j <= nbounds; j++)
		rk.seg[j] = rk.seg[j - 1] + stretch(bounds[j] - bounds[j - 1],
		    num, rk.den) + COLL_C;
}

/* t on the rank's clock; an end at a bound stays in the segment it ends */
static int64_t rank_map(int64_t t, int end)
{
	size_t lo = 0, hi = nbounds, mid;
	int64_t num = rk.rank == rk.slow ? rk.num : 1;
	int64_t den = rk.rank == rk.slow ? rk.den : 1;

	while (lo < hi) {               /* the last bound <= t (< t: an end) */
		mid = (lo + hi + 1) / 2;
		if (bounds[mid] < t || (!end && bounds[mid] == t))
			lo = mid;
		else
			hi = mid - 1;
	}
	return rk.seg[lo] + stretch(t - bounds[lo], num, den);
}

static void rank_coll(size_t k)
{
	Ev c;
	int64_t num = rk.rank == rk.slow ? rk.num : 1;
	int64_t den = rk.rank == rk.slow ? rk.den : 1;

	memset(&c, 0, sizeof c);
	c.type = EV_COLL;
	c.pid = 2;
	c.tid = COLL_TID;
	c.ts = rk.seg[k - 1] + stretch(bounds[k] - bounds[k - 1], num, den);
	c.dur = rk.seg[k] - c.ts;
	c.ts += rank_offset(rk.rank);
	deliver_one(&c);
}

static void deliver(const Ev *e)
{
	Ev m;
	int64_t end;

	if (rk.n == 0) {
		deliver_one(e);
		return;
	}
	while (rk.next <= nbounds && e->ts >= bounds[rk.next])
		rank_coll(rk.next++);
	m = *e;
	end = rank_map(e->ts + e->dur, 1);
	m.ts = rank_map(e->ts, 0);
	if (e->type == EV_X || e->type == EV_STEP)
		m.dur = end - m.ts;
	m.ts += rank_offset(rk.rank);
	deliver_one(&m);
}

static void heap_sink(Gen *g, const Ev *e)
{
	Ev o;
	heap_push(e);
	while (hn && heap[0].ts <= g->H) {
		heap_pop(&o);
		deliver(&o);
	}
}

static void heap_drain(void)
{
	Ev o;
	while (hn) {
		heap_pop(&o);
		deliver(&o);
	}
	while (rk.n && rk.next <= nbounds)
		rank_coll(rk.next++);
	if (opt.layout == LAYOUT_SHUFFLE)
		win_flush();
}

/* ------------------------------------------------------------------ */
/* --stats                                                              */

typedef struct { int64_t *v; size_t n, cap; } Vec;

static void vec_add(Vec *v, int64_t x)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 256;
		v->v = realloc(v->v, v->cap * sizeof *v->v);
		if (!v->v) {
			fprintf(stderr, "gentrace: out of memory\n");
			exit(1);
		}
	}
	v->v[v->n++] = x;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* median, x2 (exact: the sum of the two middle values for even counts) */
static int64_t median2(Vec *v)
{
	if (!v->n)
		return 0;
	qsort(v->v, v->n, sizeof *v->v, cmp_i64);
	if (v->n & 1)
		return 2 * v->v[v->n / 2];
	return v->v[v->n / 2 - 1] + v->v[v->n / 2];
}

typedef struct {
	int64_t n, sum, min, max, first, last, bytes, maxbytes;
	Vec durs;
} NStat;

static struct {
	NStat name[NNAMES];
	int64_t grid_n[2][4], grid_sum[2][4], grid_max[2][4];
	int64_t cat_n[NCAT], cat_sum[NCAT];
	int64_t nX, ns, nf, nM, pidX[4], orphans;
	int64_t min_ts, max_end;
	int64_t lane_end[4][2], lane_overlaps, host_end, overlap_events;
	int64_t dev_union, dev_cur_s, dev_cur_e, pid2_end;
	Vec gaps_s, gaps_len;
	int started;
} st;

static void stats_hook(const Ev *e)
{
	if (e->type == EV_M) {
		st.nM++;
		return;
	}
	if (!st.started || e->ts < st.min_ts)
		st.min_ts = e->ts;
	if (!st.started || e->ts + e->dur > st.max_end)
		st.max_end = e->ts + e->dur;
	st.started = 1;
	if (e->type == EV_S) {
		st.ns++;
		return;
	}
	if (e->type == EV_F) {
		st.nf++;
		return;
	}
	st.nX++;
	st.pidX[e->pid]++;
	{
		NStat *s = &st.name[e->name];
		int64_t end = e->ts + e->dur;
		if (!s->n || e->dur < s->min)
			s->min = e->dur;
		if (!s->n || e->dur > s->max)
			s->max = e->dur;
		if (!s->n || e->ts < s->first)
			s->first = e->ts;
		if (!s->n || end > s->last)
			s->last = end;
		s->n++;
		s->sum += e->dur;
		s->bytes += e->bytes;
		if (e->bytes > s->maxbytes)
			s->maxbytes = e->bytes;
		vec_add(&s->durs, e->dur);
	}
	st.cat_n[names[e->name].cat]++;
	st.cat_sum[names[e->name].cat] += e->dur;
	if ((e->name == K_KK || e->name == K_KK1) && e->phase < 4) {
		int w = e->name == K_KK1;
		st.grid_n[w][e->phase]++;
		st.grid_sum[w][e->phase] += e->dur;
		if (e->dur > st.grid_max[w][e->phase])
			st.grid_max[w][e->phase] = e->dur;
	}
	if (e->orphan)
		st.orphans++;
	/* lanes: overlaps on one (pid, tid) */
	{
		int lane = e->pid == HOST_PID ? 0 : e->tid;
		if (st.lane_end[e->pid][lane] > e->ts)
			st.lane_overlaps++;
		if (e->ts + e->dur > st.lane_end[e->pid][lane])
			st.lane_end[e->pid][lane] = e->ts + e->dur;
	}
	if (e->pid == 2) {
		if (st.pid2_end > e->ts)
			st.overlap_events++;
		if (e->ts + e->dur > st.pid2_end)
			st.pid2_end = e->ts + e->dur;
	}
	/* device busy union and idle gaps (pid 2 and 3, sorted by ts) */
	if (e->pid != HOST_PID) {
		int64_t end = e->ts + e->dur;
		if (st.dev_cur_e == 0 && st.dev_cur_s == 0) {
			st.dev_cur_s = e->ts;
			st.dev_cur_e = end;
		} else if (e->ts > st.dev_cur_e) {
			st.dev_union += st.dev_cur_e - st.dev_cur_s;
			if (e->ts - st.dev_cur_e > 100 * MS) {
				vec_add(&st.gaps_s, st.dev_cur_e);
				vec_add(&st.gaps_len, e->ts - st.dev_cur_e);
			}
			st.dev_cur_s = e->ts;
			st.dev_cur_e = end;
		} else if (end > st.dev_cur_e) {
			st.dev_cur_e = end;
		}
	}
}

static void kv(const char *k, int64_t v)
{
	printf("%s\t%" PRId64 "\n", k, v);
}

static void kv2(const char *k, const char *sub, int64_t v)
{
	printf("%s:%s\t%" PRId64 "\n", k, sub, v);
}

static void print_stats(Gen *g)
{
	int i, w, p, c;
	int64_t dev_total = 0, host_X = st.pidX[1];
	char buf[64];

	st.dev_union += st.dev_cur_e - st.dev_cur_s;
	kv("events", st.nX + st.ns + st.nf + st.nM);
	kv("X", st.nX);
	kv("s", st.ns);
	kv("f", st.nf);
	kv("M", st.nM);
	kv("bytes", opt.cut >= 0 && (int64_t)owritten > opt.cut ? opt.cut : (int64_t)owritten);
	kv("origin", ORIGIN + st.min_ts);
	kv("end", ORIGIN + st.max_end);
	kv("span", st.max_end - st.min_ts);
	kv("rounds_big", g->nb);
	kv("rounds_small", g->ns);
	kv("pid1_X", st.pidX[1]);
	kv("pid2_X", st.pidX[2]);
	kv("pid3_X", st.pidX[3]);
	kv("pairs", st.ns);
	kv("host_without_device", host_X - st.ns);
	kv("device_without_host", st.orphans);
	kv("device_with_host", st.pidX[2] + st.pidX[3] - st.orphans);
	kv("latency_sum", g->lat_sum);
	kv("latency_max", g->lat_max);
	kv("queue_negative", g->queue_neg);
	kv("lane_overlaps", st.lane_overlaps);
	kv("pid2_overlapping_events", st.overlap_events);
	kv("device_busy", st.dev_union);
	kv("device_gaps_over_100ms", (int64_t)st.gaps_s.n);
	for (i = 0; i < (int)st.gaps_s.n; i++) {
		snprintf(buf, sizeof buf, "%" PRId64, st.gaps_s.v[i] - st.min_ts);
		kv2("device_gap", buf, st.gaps_len.v[i]);
	}
	for (c = 0; c < NCAT; c++)
		if (c != CAT_HOST)
			dev_total += st.cat_sum[c];
	kv("device_dur_total", dev_total);
	for (c = 0; c < NCAT; c++) {
		kv2("category_count", cat_id[c], st.cat_n[c]);
		kv2("category_dur", cat_id[c], st.cat_sum[c]);
		if (c != CAT_HOST)
			printf("category_share:%s\t%.4f\n", cat_id[c],
			    dev_total ? 100.0 * (double)st.cat_sum[c] / (double)dev_total : 0.0);
	}
	for (i = 0; i < NNAMES; i++) {
		NStat *s = &st.name[i];
		const char *nm = names[i].name;
		if (!s->n)
			continue;
		kv2("name_count", nm, s->n);
		kv2("name_dur", nm, s->sum);
		kv2("name_min", nm, s->min);
		kv2("name_max", nm, s->max);
		{
			int64_t m2 = median2(&s->durs);
			if (m2 & 1)
				printf("name_median:%s\t%" PRId64 ".5\n", nm, m2 / 2);
			else
				printf("name_median:%s\t%" PRId64 "\n", nm, m2 / 2);
		}
		kv2("name_first", nm, s->first - st.min_ts);
		kv2("name_last", nm, s->last - st.min_ts);
		if (names[i].pid == 3) {
			kv2("name_bytes", nm, s->bytes);
			kv2("name_maxbytes", nm, s->maxbytes);
		}
	}
	for (w = 0; w < 2; w++)
		for (p = 0; p < 4; p++) {
			snprintf(buf, sizeof buf, "%s [%d,%d,1]", names[K_KK + w].name,
			    kk_grid[w][p][0], kk_grid[w][p][1]);
			kv2("grid_count", buf, st.grid_n[w][p]);
			kv2("grid_dur", buf, st.grid_sum[w][p]);
			kv2("grid_max", buf, st.grid_max[w][p]);
		}
	if (g->scale == 1.0)
		kv("teardown_copy", g->teardown_copy);
}

/* ------------------------------------------------------------------ */
/* main                                                                 */

static void usage(FILE *f)
{
	fputs("Usage: gentrace [OPTION]...\n"
	    "Write a synthetic mcTracer-shaped GPU trace (Chrome Trace Event Format)\n"
	    "to standard output; at --scale 1 it reproduces the seed's figures.\n"
	    "\n"
	    "  -s, --scale S         rounds, helper work and host noise times S (default 1)\n"
	    "  -S, --seed N          jitter seed (default 1); figures do not depend on it\n"
	    "      --stats           print key<TAB>value statistics of the trace instead\n"
	    "  -f, --form F          object (default), array, ndjson\n"
	    "  -i, --indent[=N]      one key a line, N-space indent (default 2), exactly\n"
	    "                        python's json.dumps(indent=N) layout\n"
	    "  -u, --unit U          ns (default) or us (ts/dur = ns/1000, up to 3 decimals)\n"
	    "  -l, --layout L        time (sorted, default), sections (host, kernels,\n"
	    "                        copies), shuffle (order broken in windows of 4096)\n"
	    "      --keys-around     top-level keys before and after traceEvents\n"
	    "      --grid-string     args.grid/args.block as \"(2056, 32, 1)\"\n"
	    "      --string-ts       ts and dur as JSON strings\n"
	    "      --cut N           stop after exactly N bytes of output\n"
	    "      --no-close        omit the closing ] or ]} after the last event\n"
	    "      --trailing-comma  write a comma after the last event\n"
	    "      --ranks N         a job of N ranks: DIR/rank-0.json ... (see --out),\n"
	    "                        distributedInfo set, a collective after each round\n"
	    "      --out DIR         where --ranks writes its files\n"
	    "      --slow-rank R     with --ranks: rank R is slower ...\n"
	    "      --slow-factor F   ... by the factor F (a decimal, default 1)\n"
	    "      --clock-offset NS with --ranks: each rank's clock off by up to NS ns\n"
	    "      --slow-kernel NAME  the events named NAME take longer ...\n"
	    "      --slow-factor-kernel F  ... by the factor F (dur x F, rounded down)\n"
	    "      --add-kernel NAME a kernel NAME (1 us, pid 2 tid 7) after every 100th kernel\n"
	    "      --drop-kernel NAME  the events named NAME left out\n"
	    "      --profiler-steps  a ProfilerStep#N annotation over each steady round\n"
	    "                        (Kineto's user_annotation); not with --stats\n"
	    "      --event-sync      each steady round ends with mcEventRecord and an\n"
	    "                        mcEventSynchronize that waits for its work; not\n"
	    "                        with --stats\n"
	    "      --be              each X event as a B event and its E (Chrome's\n"
	    "                        duration events; mct-cat --pair-be undoes it)\n"
	    "      --metrics FILE    also write a metric log of the trace to FILE\n"
	    "      --metrics-form F  nvidia (nvidia-smi CSV, wall times, default) or\n"
	    "                        csv (time_ns on the trace's clock)\n"
	    "      --metrics-period NS  a sample every NS ns (default 1000000)\n"
	    "  -h, --help            this help\n"
	    "\n"
	    "Exit status: 0 success, 1 write error, 2 usage error.\n", f);
}

static void bad_value(const char *opt_name, const char *v)
{
	fprintf(stderr, "gentrace: %s: invalid value '%s'\n", opt_name, v);
	exit(2);
}

static int64_t whole(const char *opt_name, const char *v, int64_t lo, int64_t hi)
{
	long long x;
	char *end;

	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || x < lo || x > hi)
		bad_value(opt_name, v);
	return (int64_t)x;
}

/* a decimal > 0 with up to 9 decimals, as num / den exactly */
static int parse_factor(const char *s, int64_t *num, int64_t *den)
{
	int64_t n = 0, d = 1;
	int digits = 0, frac = -1;

	for (; *s; s++) {
		if (*s == '.' && frac < 0) {
			frac = 0;
			continue;
		}
		if (*s < '0' || *s > '9' || digits >= 12 || frac >= 9)
			return -1;
		n = n * 10 + (*s - '0');
		digits++;
		if (frac >= 0) {
			frac++;
			d *= 10;
		}
	}
	if (digits == 0 || n == 0)
		return -1;
	*num = n;
	*den = d;
	return 0;
}

/* --ranks: the round ends first (a run that writes nothing), then each
 * rank's file, the same trace through the rank's map */
static int write_ranks(const char *dir, const Ev *m)
{
	char path[4096];
	size_t j;
	int pass;
	Gen g;

	record_bounds = 1;
	gen_init(&g, opt.scale, opt.seed, 0, null_sink);
	generate(&g);
	record_bounds = 0;
	for (j = 1; j <= nbounds; j++)
		if (bounds[j] <= bounds[j - 1]) {
			fputs("gentrace: round ends out of order\n", stderr);
			return 1;
		}
	rank_segments();
	for (rk.rank = 0; rk.rank < rk.n; rk.rank++) {
		snprintf(path, sizeof path, "%s/rank-%d.json", dir, rk.rank);
		if (freopen(path, "w", stdout) == NULL) {
			fprintf(stderr, "gentrace: %s: %s\n", path, strerror(errno));
			return 2;
		}
		owritten = 0;
		nwritten_events = 0;
		shuf_rng = mix64(opt.seed ^ UINT64_C(0x5aff1e));
		out_prefix();
		out_event(m);
		for (pass = 0; pass < (opt.layout == LAYOUT_SECTIONS ? 3 : 1); pass++) {
			section_pass = opt.layout == LAYOUT_SECTIONS ? pass : -1;
			rk.next = 1;
			gen_init(&g, opt.scale, opt.seed, 0, heap_sink);
			generate(&g);
			heap_drain();
		}
		out_suffix();
		out_flush();
		if (fflush(stdout) != 0)
			die_write();
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum { O_STATS = 256, O_KEYS, O_GRIDSTR, O_STRTS, O_CUT, O_NOCLOSE, O_TRAIL,
	    O_RANKS, O_OUT, O_SLOW, O_FACTOR, O_OFFSET,
	    O_BE, O_SLOWK, O_FACTORK, O_ADDK, O_DROPK, O_METRICS, O_MFORM,
	    O_MPERIOD, O_PSTEPS, O_EVSYNC };
	static const struct option lopts[] = {
		{ "scale", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "stats", no_argument, NULL, O_STATS },
		{ "form", required_argument, NULL, 'f' },
		{ "indent", optional_argument, NULL, 'i' },
		{ "unit", required_argument, NULL, 'u' },
		{ "layout", required_argument, NULL, 'l' },
		{ "keys-around", no_argument, NULL, O_KEYS },
		{ "grid-string", no_argument, NULL, O_GRIDSTR },
		{ "string-ts", no_argument, NULL, O_STRTS },
		{ "cut", required_argument, NULL, O_CUT },
		{ "no-close", no_argument, NULL, O_NOCLOSE },
		{ "trailing-comma", no_argument, NULL, O_TRAIL },
		{ "ranks", required_argument, NULL, O_RANKS },
		{ "out", required_argument, NULL, O_OUT },
		{ "slow-rank", required_argument, NULL, O_SLOW },
		{ "slow-factor", required_argument, NULL, O_FACTOR },
		{ "clock-offset", required_argument, NULL, O_OFFSET },
		{ "be", no_argument, NULL, O_BE },
		{ "slow-kernel", required_argument, NULL, O_SLOWK },
		{ "slow-factor-kernel", required_argument, NULL, O_FACTORK },
		{ "add-kernel", required_argument, NULL, O_ADDK },
		{ "drop-kernel", required_argument, NULL, O_DROPK },
		{ "metrics", required_argument, NULL, O_METRICS },
		{ "metrics-form", required_argument, NULL, O_MFORM },
		{ "metrics-period", required_argument, NULL, O_MPERIOD },
		{ "profiler-steps", no_argument, NULL, O_PSTEPS },
		{ "event-sync", no_argument, NULL, O_EVSYNC },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, pass;
	char *end;
	const char *outdir = NULL;
	Gen g;
	Ev m;

	while ((c = getopt_long(argc, argv, "s:S:f:i::u:l:h", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			opt.scale = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(opt.scale > 0) || opt.scale > 100000)
				bad_value("--scale", optarg);
			break;
		case 'S':
			errno = 0;
			if (!*optarg || *optarg == '-')
				bad_value("--seed", optarg);
			opt.seed = (uint64_t)strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end)
				bad_value("--seed", optarg);
			break;
		case O_STATS: opt.stats = 1; break;
		case 'f':
			if (!strcmp(optarg, "object")) opt.form = FORM_OBJECT;
			else if (!strcmp(optarg, "array")) opt.form = FORM_ARRAY;
			else if (!strcmp(optarg, "ndjson")) opt.form = FORM_NDJSON;
			else bad_value("--form", optarg);
			break;
		case 'i':
			opt.indent = 2;
			if (optarg) {
				long v;
				errno = 0;
				v = strtol(optarg, &end, 10);
				if (errno || end == optarg || *end || v < 1 || v > 16)
					bad_value("--indent", optarg);
				opt.indent = (int)v;
			}
			break;
		case 'u':
			if (!strcmp(optarg, "ns")) opt.unit_us = 0;
			else if (!strcmp(optarg, "us")) opt.unit_us = 1;
			else bad_value("--unit", optarg);
			break;
		case 'l':
			if (!strcmp(optarg, "time")) opt.layout = LAYOUT_TIME;
			else if (!strcmp(optarg, "sections")) opt.layout = LAYOUT_SECTIONS;
			else if (!strcmp(optarg, "shuffle")) opt.layout = LAYOUT_SHUFFLE;
			else bad_value("--layout", optarg);
			break;
		case O_KEYS: opt.keys_around = 1; break;
		case O_GRIDSTR: opt.grid_string = 1; break;
		case O_STRTS: opt.string_ts = 1; break;
		case O_CUT: {
			long long v;
			errno = 0;
			v = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0)
				bad_value("--cut", optarg);
			opt.cut = (int64_t)v;
			break;
		}
		case O_NOCLOSE: opt.no_close = 1; break;
		case O_TRAIL: opt.trailing_comma = 1; break;
		case O_RANKS:
			rk.n = (int)whole("--ranks", optarg, 1, 4096);
			break;
		case O_OUT: outdir = optarg; break;
		case O_SLOW:
			rk.slow = (int)whole("--slow-rank", optarg, 0, 4095);
			break;
		case O_FACTOR:
			if (parse_factor(optarg, &rk.num, &rk.den) != 0)
				bad_value("--slow-factor", optarg);
			break;
		case O_OFFSET:
			rk.offmax = whole("--clock-offset", optarg, 0,
			    INT64_C(1000000000000000));
			break;
		case O_BE: opt.be = 1; break;
		case O_SLOWK: kd.slow = optarg; break;
		case O_FACTORK:
			if (parse_factor(optarg, &kd.num, &kd.den) != 0)
				bad_value("--slow-factor-kernel", optarg);
			break;
		case O_ADDK: kd.add = optarg; break;
		case O_PSTEPS: profiler_steps = 1; break;
		case O_EVSYNC: event_sync = 1; break;
		case O_DROPK: kd.drop = optarg; break;
		case O_METRICS: mlog.path = optarg; break;
		case O_MFORM:
			if (!strcmp(optarg, "nvidia")) mlog.nvidia = 1;
			else if (!strcmp(optarg, "csv")) mlog.nvidia = 0;
			else bad_value("--metrics-form", optarg);
			break;
		case O_MPERIOD:
			mlog.period = whole("--metrics-period", optarg, 1000,
			    INT64_C(60000000000));
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fputs("Try 'gentrace --help' for more information.\n", stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gentrace: unexpected argument '%s'\n", argv[optind]);
		fputs("Try 'gentrace --help' for more information.\n", stderr);
		return 2;
	}
	if (opt.form == FORM_NDJSON && opt.indent) {
		fputs("gentrace: --indent cannot be used with --form ndjson\n", stderr);
		return 2;
	}
	if (opt.form != FORM_OBJECT && opt.keys_around) {
		fputs("gentrace: --keys-around needs --form object\n", stderr);
		return 2;
	}

	if ((rk.n > 0) != (outdir != NULL) || (rk.n == 0 && (rk.slow >= 0 ||
	    rk.num != rk.den || rk.offmax)) || (rk.n && (opt.stats || opt.cut >= 0)) ||
	    rk.slow >= rk.n) {
		fputs("gentrace: --ranks N and --out DIR go together; --slow-rank "
		    "(below N), --slow-factor\nand --clock-offset need them; "
		    "--stats and --cut do not take them\n", stderr);
		return 2;
	}

	if ((profiler_steps || event_sync) && opt.stats) {
		fputs("gentrace: --profiler-steps, --event-sync: not with --stats\n", stderr);
		return 2;
	}

	if (mlog.path != NULL && (rk.n > 0 || opt.stats)) {
		fputs("gentrace: --metrics writes the log of one trace: not with --ranks or --stats\n", stderr);
		return 2;
	}

	obuf = malloc(OBUF_SIZE);
	win = malloc(WINDOW * sizeof *win);
	if (!obuf || !win) {
		fputs("gentrace: out of memory\n", stderr);
		return 1;
	}
	shuf_rng = mix64(opt.seed ^ UINT64_C(0x5aff1e));
	setup_specials();
	calibrate(opt.seed);

	memset(&m, 0, sizeof m);
	m.type = EV_M;
	m.pid = 2;

	if (opt.stats) {
		odiscard = 1;
		opt.layout = LAYOUT_TIME;
		deliver_hook = stats_hook;
		out_prefix();
		stats_hook(&m);
		out_event(&m);
		gen_init(&g, opt.scale, opt.seed, 0, heap_sink);
		generate(&g);
		heap_drain();
		out_suffix();
		out_flush();
		print_stats(&g);
		if (fflush(stdout) != 0)
			die_write();
		return 0;
	}

	if (rk.n > 0)
		return write_ranks(outdir, &m);
	out_prefix();
	out_event(&m);
	for (pass = 0; pass < (opt.layout == LAYOUT_SECTIONS ? 3 : 1); pass++) {
		section_pass = opt.layout == LAYOUT_SECTIONS ? pass : -1;
		gen_init(&g, opt.scale, opt.seed, 0, heap_sink);
		generate(&g);
		heap_drain();
		if (getenv("GENTRACE_DEBUG"))
			fprintf(stderr, "teardown copy %" PRId64 " memcpy host %" PRId64 "\n",
			    g.teardown_copy, g.host_sum[N_MEMCPY]);
	}
	out_suffix();
	out_flush();
	if (fflush(stdout) != 0)
		die_write();
	metrics_write();
	return 0;
}
