//===- cublaslt.cpp - Library GEMMs on CUDA through cuBLASLt --------------===//
//
// The few cuBLASLt types, constants and entry points used are declared
// here; when the build finds cublasLt.h (TANDEM_RUNTIME_CHECK_CUBLASLT_H)
// they are checked against it at compile time.
//
// Row-major GEMMs map onto cuBLASLt's column-major ones by swapping the
// operands: a row-major m x n C is the column-major n x m C^T, and
// C^T = op(B)^T op(A)^T, so cuBLASLt's "A" is our B and its "B" our A. The
// bias (n elements) then runs along the rows of C^T, which is what
// CUBLASLT_EPILOGUE_BIAS broadcasts.
//
//===----------------------------------------------------------------------===//

#include "device/cublaslt.h"
#include "device/library_loader.h"
#include "kernels/gemm_desc.h"

#include <cstring>

#ifdef TANDEM_RUNTIME_CHECK_CUBLASLT_H
#include <cublasLt.h>
#include <type_traits>
#endif

namespace tandem {
namespace cublaslt {

namespace lt {

using Status = int;
struct ContextSt;
using Handle = ContextSt *;
struct MatmulDescOpaque {
  uint64_t data[32];
};
struct LayoutOpaque {
  uint64_t data[8];
};
struct PreferenceOpaque {
  uint64_t data[8];
};
using MatmulDesc = MatmulDescOpaque *;
using Layout = LayoutOpaque *;
using Preference = PreferenceOpaque *;
struct Algo {
  uint64_t data[8];
};
struct HeuristicResult {
  Algo algo;
  size_t workspaceSize;
  Status state;
  float wavesCount;
  int reserved[4];
};
using ComputeType = int;
using DataType = int;
using DescAttribute = int;
using LayoutAttribute = int;
using PreferenceAttribute = int;
struct StreamSt;
using Stream = StreamSt *;

constexpr Status kSuccess = 0;
constexpr ComputeType kCompute32F = 68;
constexpr ComputeType kCompute32FFast16F = 74;
constexpr ComputeType kCompute32FFast16BF = 75;
constexpr ComputeType kCompute32FFastTF32 = 77;
constexpr DataType kR32F = 0;
constexpr DataType kR16F = 2;
constexpr DataType kR16BF = 14;
constexpr int32_t kOpN = 0;
constexpr int32_t kOpT = 1;
constexpr DescAttribute kDescTransA = 3;
constexpr DescAttribute kDescTransB = 4;
constexpr DescAttribute kDescEpilogue = 7;
constexpr DescAttribute kDescBiasPointer = 8;
constexpr uint32_t kEpilogueDefault = 1;
constexpr uint32_t kEpilogueRelu = 2;
constexpr uint32_t kEpilogueBias = 4;
constexpr uint32_t kEpilogueReluBias = 6;
constexpr uint32_t kEpilogueGelu = 32;
constexpr uint32_t kEpilogueGeluBias = 36;
constexpr LayoutAttribute kLayoutBatchCount = 5;
constexpr LayoutAttribute kLayoutStridedBatchOffset = 6;
constexpr PreferenceAttribute kPrefMaxWorkspaceBytes = 1;
constexpr PreferenceAttribute kPrefMinAlignmentA = 5;
constexpr PreferenceAttribute kPrefMinAlignmentB = 6;
constexpr PreferenceAttribute kPrefMinAlignmentC = 7;
constexpr PreferenceAttribute kPrefMinAlignmentD = 8;

} // namespace lt

// X(field, symbol, parameter types): the cuBLASLt entry points used.
#define TANDEM_CUBLASLT_FUNCTIONS(X)                                           \
  X(create, cublasLtCreate, (lt::Handle *))                                    \
  X(destroy, cublasLtDestroy, (lt::Handle))                                    \
  X(descCreate, cublasLtMatmulDescCreate,                                      \
    (lt::MatmulDesc *, lt::ComputeType, lt::DataType))                         \
  X(descDestroy, cublasLtMatmulDescDestroy, (lt::MatmulDesc))                  \
  X(descSetAttribute, cublasLtMatmulDescSetAttribute,                          \
    (lt::MatmulDesc, lt::DescAttribute, const void *, size_t))                 \
  X(layoutCreate, cublasLtMatrixLayoutCreate,                                  \
    (lt::Layout *, lt::DataType, uint64_t, uint64_t, int64_t))                 \
  X(layoutDestroy, cublasLtMatrixLayoutDestroy, (lt::Layout))                  \
  X(layoutSetAttribute, cublasLtMatrixLayoutSetAttribute,                      \
    (lt::Layout, lt::LayoutAttribute, const void *, size_t))                   \
  X(preferenceCreate, cublasLtMatmulPreferenceCreate, (lt::Preference *))      \
  X(preferenceDestroy, cublasLtMatmulPreferenceDestroy, (lt::Preference))      \
  X(preferenceSetAttribute, cublasLtMatmulPreferenceSetAttribute,              \
    (lt::Preference, lt::PreferenceAttribute, const void *, size_t))           \
  X(algoGetHeuristic, cublasLtMatmulAlgoGetHeuristic,                          \
    (lt::Handle, lt::MatmulDesc, lt::Layout, lt::Layout, lt::Layout,           \
     lt::Layout, lt::Preference, int, lt::HeuristicResult *, int *))           \
  X(matmul, cublasLtMatmul,                                                    \
    (lt::Handle, lt::MatmulDesc, const void *, const void *, lt::Layout,       \
     const void *, lt::Layout, const void *, const void *, lt::Layout, void *, \
     lt::Layout, const lt::Algo *, void *, size_t, lt::Stream))

#ifdef TANDEM_RUNTIME_CHECK_CUBLASLT_H
// Compile-time check of the declarations above against cublasLt.h.
template <typename T> struct Ours { using type = T; };
template <typename T> struct Ours<T *> {
  using type = typename Ours<T>::type *;
};
template <typename T> struct Ours<const T> {
  using type = const typename Ours<T>::type;
};
template <> struct Ours<cublasStatus_t> { using type = lt::Status; };
template <> struct Ours<cublasLtContext> { using type = lt::ContextSt; };
template <> struct Ours<cublasLtMatmulDescOpaque_t> {
  using type = lt::MatmulDescOpaque;
};
template <> struct Ours<cublasLtMatrixLayoutOpaque_t> {
  using type = lt::LayoutOpaque;
};
template <> struct Ours<cublasLtMatmulPreferenceOpaque_t> {
  using type = lt::PreferenceOpaque;
};
template <> struct Ours<cublasLtMatmulAlgo_t> { using type = lt::Algo; };
template <> struct Ours<cublasLtMatmulHeuristicResult_t> {
  using type = lt::HeuristicResult;
};
template <> struct Ours<cublasComputeType_t> { using type = lt::ComputeType; };
template <> struct Ours<cudaDataType_t> { using type = lt::DataType; };
template <> struct Ours<cublasLtMatmulDescAttributes_t> {
  using type = lt::DescAttribute;
};
template <> struct Ours<cublasLtMatrixLayoutAttribute_t> {
  using type = lt::LayoutAttribute;
};
template <> struct Ours<cublasLtMatmulPreferenceAttributes_t> {
  using type = lt::PreferenceAttribute;
};
template <> struct Ours<CUstream_st> { using type = lt::StreamSt; };
template <typename F> struct OursFn;
template <typename R, typename... A> struct OursFn<R (*)(A...)> {
  using type = typename Ours<R>::type (*)(typename Ours<A>::type...);
};
static_assert(sizeof(cublasStatus_t) == sizeof(lt::Status), "status");
static_assert(sizeof(cublasComputeType_t) == sizeof(lt::ComputeType) &&
                  sizeof(cudaDataType_t) == sizeof(lt::DataType) &&
                  sizeof(cublasLtMatmulDescAttributes_t) ==
                      sizeof(lt::DescAttribute) &&
                  sizeof(cublasLtMatrixLayoutAttribute_t) ==
                      sizeof(lt::LayoutAttribute) &&
                  sizeof(cublasLtMatmulPreferenceAttributes_t) ==
                      sizeof(lt::PreferenceAttribute),
              "enum sizes");
static_assert(
    sizeof(cublasLtMatmulDescOpaque_t) == sizeof(lt::MatmulDescOpaque) &&
        sizeof(cublasLtMatrixLayoutOpaque_t) == sizeof(lt::LayoutOpaque) &&
        sizeof(cublasLtMatmulPreferenceOpaque_t) ==
            sizeof(lt::PreferenceOpaque) &&
        sizeof(cublasLtMatmulAlgo_t) == sizeof(lt::Algo) &&
        sizeof(cublasLtMatmulHeuristicResult_t) == sizeof(lt::HeuristicResult),
    "struct sizes");
static_assert(CUBLAS_STATUS_SUCCESS == lt::kSuccess &&
                  CUBLAS_COMPUTE_32F == lt::kCompute32F &&
                  CUBLAS_COMPUTE_32F_FAST_TF32 == lt::kCompute32FFastTF32 &&
                  CUBLAS_COMPUTE_32F_FAST_16BF == lt::kCompute32FFast16BF &&
                  CUBLAS_COMPUTE_32F_FAST_16F == lt::kCompute32FFast16F &&
                  CUDA_R_32F == lt::kR32F && CUDA_R_16F == lt::kR16F &&
                  CUDA_R_16BF == lt::kR16BF && CUBLAS_OP_N == lt::kOpN &&
                  CUBLAS_OP_T == lt::kOpT,
              "cublas values");
static_assert(CUBLASLT_MATMUL_DESC_TRANSA == lt::kDescTransA &&
                  CUBLASLT_MATMUL_DESC_TRANSB == lt::kDescTransB &&
                  CUBLASLT_MATMUL_DESC_EPILOGUE == lt::kDescEpilogue &&
                  CUBLASLT_MATMUL_DESC_BIAS_POINTER == lt::kDescBiasPointer,
              "matmul descriptor attributes");
static_assert(CUBLASLT_EPILOGUE_DEFAULT == lt::kEpilogueDefault &&
                  CUBLASLT_EPILOGUE_RELU == lt::kEpilogueRelu &&
                  CUBLASLT_EPILOGUE_BIAS == lt::kEpilogueBias &&
                  CUBLASLT_EPILOGUE_RELU_BIAS == lt::kEpilogueReluBias &&
                  CUBLASLT_EPILOGUE_GELU == lt::kEpilogueGelu &&
                  CUBLASLT_EPILOGUE_GELU_BIAS == lt::kEpilogueGeluBias,
              "epilogues");
static_assert(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT == lt::kLayoutBatchCount &&
                  CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET ==
                      lt::kLayoutStridedBatchOffset,
              "layout attributes");
static_assert(
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES == lt::kPrefMaxWorkspaceBytes &&
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES == lt::kPrefMinAlignmentA &&
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES == lt::kPrefMinAlignmentB &&
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES == lt::kPrefMinAlignmentC &&
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES == lt::kPrefMinAlignmentD,
    "preference attributes");
#define TANDEM_CHECK_SIGNATURE(field, symbol, params)                          \
  static_assert(std::is_same<OursFn<decltype(&::symbol)>::type,                \
                             lt::Status(*) params>::value,                     \
                #symbol " differs from cublasLt.h");
TANDEM_CUBLASLT_FUNCTIONS(TANDEM_CHECK_SIGNATURE)
#undef TANDEM_CHECK_SIGNATURE
#endif

/// The loaded library's entry points.
struct Api {
#define TANDEM_DECLARE_FIELD(field, symbol, params)                            \
  lt::Status(*field) params = nullptr;
  TANDEM_CUBLASLT_FUNCTIONS(TANDEM_DECLARE_FIELD)
#undef TANDEM_DECLARE_FIELD
};

/// A built GEMM: descriptors and the algorithm cuBLASLt chose.
struct Plan {
  const Api *api = nullptr;
  lt::MatmulDesc desc = nullptr;
  lt::Layout x = nullptr, y = nullptr, d = nullptr;
  lt::Algo algo = {};
  ~Plan() {
    if (desc)
      api->descDestroy(desc);
    for (lt::Layout layout : {x, y, d})
      if (layout)
        api->layoutDestroy(layout);
  }
};

namespace {

struct Loaded {
  Api api;
  std::string error;
};

Loaded loadLibrary() {
  Loaded loaded;
  OpenedLibrary lib =
      openLibrary("cuBLASLt", "TANDEM_CUBLASLT",
                  {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"});
  if (!lib.handle) {
    loaded.error = lib.error;
    return loaded;
  }
#define TANDEM_LOAD_FIELD(field, symbol, params)                               \
  if (!loadSymbol(lib.handle, "cuBLASLt", #symbol, loaded.api.field,           \
                  loaded.error))                                               \
    return loaded;
  TANDEM_CUBLASLT_FUNCTIONS(TANDEM_LOAD_FIELD)
#undef TANDEM_LOAD_FIELD
  return loaded;
}

/// Fails with the name of a cuBLASLt call and its status.
tandem_status_t check(lt::Status status, const char *call) {
  if (status == lt::kSuccess)
    return nullptr;
  return tandem_status_make(TANDEM_INTERNAL, "cuBLASLt: %s failed: status %d",
                            call, status);
}

/// The largest power of two up to 256 dividing `address`.
unsigned alignmentOf(uint64_t address) {
  unsigned alignment = 256;
  while (alignment > 4 && address % alignment)
    alignment /= 2;
  return alignment;
}

} // namespace

const Api *load(std::string *reason) {
  static const Loaded loaded = loadLibrary();
  if (!loaded.error.empty()) {
    *reason = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}

tandem_status_t Context::create(const Api &api, std::unique_ptr<Context> *out) {
  lt::Handle handle = nullptr;
  lt::Status status = api.create(&handle);
  if (status != lt::kSuccess)
    return tandem_status_make(TANDEM_UNAVAILABLE,
                              "cuBLASLt: cublasLtCreate failed: status %d",
                              status);
  out->reset(new Context(api, handle));
  return nullptr;
}

Context::Context(const Api &api, void *handle) : api(api), handle(handle) {}

Context::~Context() {
  plans.clear();
  api.destroy(static_cast<lt::Handle>(handle));
}

tandem_status_t Context::getPlan(const tandem_gemm_desc_t &g,
                                 unsigned alignment, Plan **out) {
  Key key;
  std::memcpy(key.data(), &g, sizeof(g));
  key.back() = alignment;
  auto cached = plans.find(key);
  if (cached != plans.end()) {
    *out = cached->second.get();
    return nullptr;
  }
  auto plan = std::make_unique<Plan>();
  plan->api = &api;
  // Column-major: X = our B (op gives n x k), Y = our A (op gives k x m),
  // D = C^T (n x m).
  // f32 operands: a fast compute type lets the tensor cores round them
  // (TANDEM_GEMM_ALLOW_*, at most one set: gemm::check). 16-bit operands
  // (TANDEM_GEMM_16BIT_AB) are BF16 or FP16 in memory, multiplied with f32
  // accumulation (CUBLAS_COMPUTE_32F) into an f32 C.
  lt::ComputeType compute = lt::kCompute32F;
  lt::DataType operandType = lt::kR32F;
  if (gemm::has16BitOperands(g))
    operandType = (g.flags & TANDEM_GEMM_ALLOW_BF16) ? lt::kR16BF : lt::kR16F;
  else if (g.flags & TANDEM_GEMM_ALLOW_TF32)
    compute = lt::kCompute32FFastTF32;
  else if (g.flags & TANDEM_GEMM_ALLOW_BF16)
    compute = lt::kCompute32FFast16BF;
  else if (g.flags & TANDEM_GEMM_ALLOW_FP16)
    compute = lt::kCompute32FFast16F;
  if (tandem_status_t s = check(api.descCreate(&plan->desc, compute, lt::kR32F),
                                "cublasLtMatmulDescCreate"))
    return s;
  int32_t transX = g.trans_b ? lt::kOpT : lt::kOpN;
  int32_t transY = g.trans_a ? lt::kOpT : lt::kOpN;
  uint32_t epilogue = lt::kEpilogueDefault;
  switch (g.epilogue) {
  case TANDEM_GEMM_EPILOGUE_RELU:
    epilogue = lt::kEpilogueRelu;
    break;
  case TANDEM_GEMM_EPILOGUE_BIAS:
    epilogue = lt::kEpilogueBias;
    break;
  case TANDEM_GEMM_EPILOGUE_BIAS_RELU:
    epilogue = lt::kEpilogueReluBias;
    break;
  case TANDEM_GEMM_EPILOGUE_GELU:
    epilogue = lt::kEpilogueGelu;
    break;
  case TANDEM_GEMM_EPILOGUE_BIAS_GELU:
    epilogue = lt::kEpilogueGeluBias;
    break;
  default:
    break;
  }
  if (tandem_status_t s =
          check(api.descSetAttribute(plan->desc, lt::kDescTransA, &transX,
                                     sizeof(transX)),
                "cublasLtMatmulDescSetAttribute(TRANSA)"))
    return s;
  if (tandem_status_t s =
          check(api.descSetAttribute(plan->desc, lt::kDescTransB, &transY,
                                     sizeof(transY)),
                "cublasLtMatmulDescSetAttribute(TRANSB)"))
    return s;
  if (tandem_status_t s =
          check(api.descSetAttribute(plan->desc, lt::kDescEpilogue, &epilogue,
                                     sizeof(epilogue)),
                "cublasLtMatmulDescSetAttribute(EPILOGUE)"))
    return s;
  struct Shape {
    lt::Layout *layout;
    lt::DataType type;
    uint64_t rows, cols;
    int64_t ld, stride;
  } shapes[] = {
      {&plan->x, operandType, uint64_t(g.trans_b ? g.k : g.n),
       uint64_t(g.trans_b ? g.n : g.k), g.ldb, g.stride_b},
      {&plan->y, operandType, uint64_t(g.trans_a ? g.m : g.k),
       uint64_t(g.trans_a ? g.k : g.m), g.lda, g.stride_a},
      {&plan->d, lt::kR32F, uint64_t(g.n), uint64_t(g.m), g.ldc, g.stride_c}};
  for (const Shape &shape : shapes) {
    if (tandem_status_t s =
            check(api.layoutCreate(shape.layout, shape.type, shape.rows,
                                   shape.cols, shape.ld),
                  "cublasLtMatrixLayoutCreate"))
      return s;
    if (g.batch > 1) {
      int32_t count = static_cast<int32_t>(g.batch);
      int64_t stride = shape.stride;
      if (tandem_status_t s =
              check(api.layoutSetAttribute(*shape.layout, lt::kLayoutBatchCount,
                                           &count, sizeof(count)),
                    "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)"))
        return s;
      if (tandem_status_t s =
              check(api.layoutSetAttribute(*shape.layout,
                                           lt::kLayoutStridedBatchOffset,
                                           &stride, sizeof(stride)),
                    "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)"))
        return s;
    }
  }
  lt::Preference preference = nullptr;
  if (tandem_status_t s = check(api.preferenceCreate(&preference),
                                "cublasLtMatmulPreferenceCreate"))
    return s;
  uint64_t workspace = kWorkspaceBytes;
  uint32_t align = alignment;
  lt::Status status = api.preferenceSetAttribute(
      preference, lt::kPrefMaxWorkspaceBytes, &workspace, sizeof(workspace));
  for (lt::PreferenceAttribute attribute :
       {lt::kPrefMinAlignmentA, lt::kPrefMinAlignmentB, lt::kPrefMinAlignmentC,
        lt::kPrefMinAlignmentD})
    if (status == lt::kSuccess)
      status = api.preferenceSetAttribute(preference, attribute, &align,
                                          sizeof(align));
  lt::HeuristicResult result = {};
  int found = 0;
  if (status == lt::kSuccess)
    status = api.algoGetHeuristic(static_cast<lt::Handle>(handle), plan->desc,
                                  plan->x, plan->y, plan->d, plan->d,
                                  preference, 1, &result, &found);
  api.preferenceDestroy(preference);
  if (tandem_status_t s = check(status, "cublasLtMatmulAlgoGetHeuristic"))
    return s;
  if (found == 0)
    return tandem_status_make(
        TANDEM_INTERNAL,
        "cuBLASLt: no algorithm for a %lldx%lldx%lld GEMM (batch %lld, "
        "epilogue %lld)",
        static_cast<long long>(g.m), static_cast<long long>(g.n),
        static_cast<long long>(g.k), static_cast<long long>(g.batch),
        static_cast<long long>(g.epilogue));
  plan->algo = result.algo;
  *out = plan.get();
  plans.emplace(key, std::move(plan));
  return nullptr;
}

tandem_status_t Context::gemm(const tandem_gemm_desc_t &g, uint64_t a,
                              uint64_t b, uint64_t c, uint64_t bias,
                              uint64_t workspace, void *stream) {
  unsigned alignment = alignmentOf(a | b | c | (gemm::hasBias(g) ? bias : 0));
  std::lock_guard<std::mutex> lock(mutex);
  Plan *plan = nullptr;
  if (tandem_status_t s = getPlan(g, alignment, &plan))
    return s;
  if (gemm::hasBias(g)) {
    const void *pointer = reinterpret_cast<const void *>(bias);
    if (tandem_status_t s =
            check(api.descSetAttribute(plan->desc, lt::kDescBiasPointer,
                                       &pointer, sizeof(pointer)),
                  "cublasLtMatmulDescSetAttribute(BIAS_POINTER)"))
      return s;
  }
  const float alpha = 1.0f, beta = 0.0f;
  auto ptr = [](uint64_t address) {
    return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
  };
  return check(api.matmul(static_cast<lt::Handle>(handle), plan->desc, &alpha,
                          ptr(b), plan->x, ptr(a), plan->y, &beta, ptr(c),
                          plan->d, ptr(c), plan->d, &plan->algo, ptr(workspace),
                          kWorkspaceBytes, static_cast<lt::Stream>(stream)),
               "cublasLtMatmul");
}

} // namespace cublaslt
} // namespace tandem
