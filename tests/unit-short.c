/*
 * unit-short.c - short.c: real kernel names from the Kineto fixtures (CUDA
 * and ROCm), copied here as data, and what people read of them.
 */
#include "config.h"

#include <string.h>

#include "mct.h"
#include "unit.h"

void
test_short(void)
{
	static const struct {
		const char	*name, *want;
	} t[] = {
		{ "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
		    "at::native::reduce_kernel<MeanOps>" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
		    "at::native::vectorized_elementwise_kernel<FillFunctor>" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
		    "at::native::vectorized_elementwise_kernel<CUDAFunctor_add>" },
		{ "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
		    "at::native::vectorized_elementwise_kernel<CUDAFunctor_add>" },
		{ "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
		    "at::native::vectorized_layer_norm_kernel" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<long, long, bool, at::native::(anonymous namespace)::CompareEqFunctor<long> >, std::array<char*, 2ul> >(int, at::native::AUnaryFunctor<long, long, bool, at::native::(anonymous namespace)::CompareEqFunctor<long> >, std::array<char*, 2ul>)",
		    "at::native::vectorized_elementwise_kernel<AUnaryFunctor, CompareEqFunctor>" },
		{ "attn_fwd",
		    "attn_fwd" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
		    "at::native::vectorized_elementwise_kernel<CUDAFunctor_add>" },
		{ "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
		    "cutlass::Kernel2" },
		{ "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, false, false, false, false, true, false>(pytorch_flash::Flash_fwd_params)",
		    "pytorch_flash::flash_fwd_kernel" },
		{ "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8::Params)",
		    "cutlass::Kernel2" },
		{ "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
		    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas" },
		{ "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>(cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2::Params)",
		    "cutlass::Kernel2" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4::Params)",
		    "cutlass::Kernel" },
		{ "void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>, float const*, float const*, float*, float const*, float const*, float const*, float const*, float*, void*, long, float*, int*)",
		    "splitKreduce_kernel" },
		{ "void at::native::vectorized_elementwise_kernel<2, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
		    "at::native::vectorized_elementwise_kernel<CUDAFunctor_add>" },
		{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
		    "at::native::CatArrayBatchedCopy" },
		{ "ampere_sgemm_128x64_nn",
		    "ampere_sgemm_128x64_nn" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1>(cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nt_align1>(cutlass_80_tensorop_s1688gemm_64x64_32x4_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "ampere_sgemm_128x128_tn",
		    "ampere_sgemm_128x128_tn" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x128_32x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x128_32x6_nn_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align4>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align4::Params)",
		    "cutlass::Kernel" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3> >(int, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3>)",
		    "at::native::vectorized_elementwise_kernel<BinaryFunctor, MulFunctor>" },
		{ "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<float, float>(float const*, float const*, float const*, float const*, float const*, float*, int)",
		    "at::native::layer_norm_grad_input_kernel" },
		{ "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float const*, float const*, float const*, float const*, float*, float*)",
		    "at::native::GammaBetaBackwardCUDAKernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_16x6_nt_align4>(cutlass_80_tensorop_s1688gemm_128x64_16x6_nt_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nn_align1>(cutlass_80_tensorop_s1688gemm_64x64_32x4_nn_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x256_32x3_nn_align1>(cutlass_80_tensorop_s1688gemm_128x256_32x3_nn_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align1>(cutlass_80_tensorop_s1688gemm_128x128_16x4_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_32x3_nt_align1>(cutlass_80_tensorop_s1688gemm_256x64_32x3_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_128x64_16x6_nn_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x128_32x3_nt_align4>(cutlass_80_tensorop_s1688gemm_64x128_32x3_nt_align4::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x4_tn_align4::Params)",
		    "cutlass::Kernel" },
		{ "ampere_sgemm_128x128_tt",
		    "ampere_sgemm_128x128_tt" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align1>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "ampere_sgemm_64x64_nn",
		    "ampere_sgemm_64x64_nn" },
		{ "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 64, 64>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 64, 64>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
		    "at::native::CatArrayBatchedCopy" },
		{ "void permute_pooled_embs_kernel<float>(float const*, long const*, long const*, long const*, float*, long, long, long)",
		    "permute_pooled_embs_kernel" },
		{ "void recat_copy_async_kernel<float>(long const*, long const*, float const*, float*, long, long, long)",
		    "recat_copy_async_kernel" },
		{ "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)",
		    "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, at::native::BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2>)",
		    "at::native::vectorized_elementwise_kernel<BUnaryFunctor, MulFunctor>" },
		{ "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
		    "ncclKernel_AllReduce_RING_LL_Sum_float" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2>)",
		    "at::native::vectorized_elementwise_kernel<AUnaryFunctor, MulFunctor>" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align1>(cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x128_32x3_nt_align1>(cutlass_80_tensorop_s1688gemm_256x128_32x3_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align1>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x64_16x6_nt_align1>(cutlass_80_tensorop_s1688gemm_128x64_16x6_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align1>(cutlass_80_tensorop_s1688gemm_128x128_32x3_nt_align1::Params)",
		    "cutlass::Kernel" },
		{ "void cub::DeviceRadixSortHistogramKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, long, int>(int*, long const*, int, int, int)",
		    "cub::DeviceRadixSortHistogramKernel" },
		{ "void cub::DeviceRadixSortExclusiveSumKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, int>(int*)",
		    "cub::DeviceRadixSortExclusiveSumKernel" },
		{ "void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, long, int, int, int>(int*, int*, int*, int const*, long*, long const*, int*, int const*, int, int, int)",
		    "cub::DeviceRadixSortOnesweepKernel" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<int>, at::detail::Array<char*, 1>)",
		    "at::native::vectorized_elementwise_kernel<FillFunctor>" },
		{ "void cub::DeviceCompactInitKernel<cub::ReduceByKeyScanTileState<int, int, true>, int*>(cub::ReduceByKeyScanTileState<int, int, true>, int, int*)",
		    "cub::DeviceCompactInitKernel" },
		{ "void cub::DeviceScanInitKernel<cub::ScanTileState<int, true> >(cub::ScanTileState<int, true>, int)",
		    "cub::DeviceScanInitKernel" },
		{ "void at::native::vectorized_gather_kernel<16, long>(char*, char*, at::native::index_t*, int64_t, int64_t, int64_t, int64_t, bool)",
		    "at::native::vectorized_gather_kernel" },
		{ "Memcpy DtoD (Device -> Device)",
		    "Memcpy DtoD (Device -> Device)" },
		{ "_Znot_mangled",
		    "_Znot_mangled" },
		{ "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS1_USFGROn1_VSn1_VWA1_VWB1_WSGRA1_WSGRB1_WS64_WG64_4_1",
		    "Cijk_Alik_Bljk_…_MT64x16x32" },
		{ "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_GRVWA1_GRVWB1_GSUAMB_ISA90a_IU1_K1_LBSPPA0_LBSPPB0_LBSPPM0_LPA0_LPB0_LPM0_LRVW1_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS0_USFGROn1_VSn1_VWA1_VWB1_WSGRA0_WSGRB0_WS64_WG64_4_1",
		    "Cijk_Ailk_Bjlk_…_MT64x16x16" },
		{ "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA256_LBSPPB256_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW1_SK0_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA1_VWB1_WSGRA0_WSGRB0_WS64_WG16_4_4",
		    "Cijk_Alik_Bljk_…_MT16x16x128" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
		    "at::native::vectorized_elementwise_kernel" },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::mse_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}, at::detail::Array<char*, 3> >(int, at::native::mse_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float, float)#1}, at::detail::Array<char*, 3>)",
		    "at::native::vectorized_elementwise_kernel" },
	};
	static const char *mangled[][2] = {
		{ "_ZN2ck27kernel_gemm_xdl_cshuffle_v1INS_16GridwiseGemm_xdlIfLb1EEELi256EEEvPKfPf",
		    "ck::kernel_gemm_xdl_cshuffle_v1" },
		{ "_ZN2ck12_GLOBAL__N_19anon_fillEi", "ck::anon_fill" },
		/* cut by the profiler (the demangler refuses them): the
		   qualified name read by hand, as the whole name's short */
		{ "_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3\xe2\x80\xa6",
		    "ck::tensor_operation::device::kernel_grouped_conv_fwd_xdl_cshuffle_v3" },
		{ "_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3INS_31GridwiseGemm",
		    "ck::tensor_operation::device::kernel_grouped_conv_fwd_xdl_cshuffle_v3" },
		{ "_ZN2ck27kernel_gemm_xdl_cshuffle_v1...",
		    "ck::kernel_gemm_xdl_cshuffle_v1" },
		{ "_ZN2ck27kernel_gemm_xd...", "ck::kernel_gemm_xd" },
		{ "_ZNSt6vector", "std::vector" },
		{ "_Z12launch_", "launch_" },
		{ "_ZN...", "_ZN..." },
	};
	struct mct_buf b = { 0 };
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		b.len = 0;
		mct_short(t[i].name, strlen(t[i].name), &b);
		if (b.len != strlen(t[i].want) ||
		    memcmp(b.p, t[i].want, b.len) != 0) {
			diag("short: '%s' gave '%.*s', want '%s'", t[i].name,
			    (int)b.len, b.p, t[i].want);
			bad++;
		}
		if (memchr(b.p, '(', b.len) && t[i].name[0] != 'M')
			bad++;
	}
	ok(bad == 0 && i >= 50, "short: %zu real names shortened", i);
	for (i = 0; i < sizeof(mangled) / sizeof(mangled[0]); i++) {
		const char *want = mangled[i][1];

		b.len = 0;
		mct_short(mangled[i][0], strlen(mangled[i][0]), &b);
		ok(b.len == strlen(want) && memcmp(b.p, want, b.len) == 0,
		    "short: %s -> %s (demangled, or its qualified name read "
		    "by hand)", mangled[i][0], want);
	}
	/* the functor kept: kernels that differ by it alone stay apart;
	   one named twice is written once; a function's ( is no list */
	{
		static const char *f[][2] = {
			{ "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
			    "at::native::vectorized_elementwise_kernel<FillFunctor>" },
			{ "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, 1>)",
			    "at::native::vectorized_elementwise_kernel<AddFunctor>" },
			{ "void k<ns::WrapFunctor<ns::WrapFunctor<int> >, ns::AddFunctor<int> >(int)",
			    "k<WrapFunctor, AddFunctor>" },
			{ "void (anonymous namespace)::k<(anonymous namespace)::SumOps<float> >(int)",
			    "k<SumOps>" },
		};

		for (i = 0, bad = 0; i < 4; i++) {
			b.len = 0;
			mct_short(f[i][0], strlen(f[i][0]), &b);
			if (b.len != strlen(f[i][1]) ||
			    memcmp(b.p, f[i][1], b.len) != 0) {
				diag("short: '%s' gave '%.*s'", f[i][0],
				    (int)b.len, b.p);
				bad++;
			}
		}
		ok(bad == 0, "short: the functors among the template arguments kept, each once");
	}
	/* appends: what is in the buffer stays */
	b.len = 0;
	mct_buf_adds(&b, "x=");
	mct_short("void f<int>(int)", 16, &b);
	ok(b.len == 3 && memcmp(b.p, "x=f", 3) == 0, "short: appends to the buffer");
	mct_buf_free(&b);
}
