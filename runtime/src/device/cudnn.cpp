//===- cudnn.cpp - Library convolutions on CUDA through cuDNN -------------===//
//
// The few cuDNN types, constants and entry points used (the legacy
// convolution API) are declared here; when the build finds cudnn.h
// (TANDEM_RUNTIME_CHECK_CUDNN_H) they are checked against it at compile
// time.
//
//===----------------------------------------------------------------------===//

#include "device/cudnn.h"
#include "device/library_loader.h"
#include "kernels/conv_desc.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include <glob.h>

#ifdef TANDEM_RUNTIME_CHECK_CUDNN_H
#include <cudnn.h>
#include <type_traits>
#endif

namespace tandem {
namespace cudnn {

namespace dnn {

using Status = int;
struct ContextSt;
using Handle = ContextSt *;
struct TensorSt;
using Tensor = TensorSt *;
struct FilterSt;
using Filter = FilterSt *;
struct ConvolutionSt;
using Convolution = ConvolutionSt *;
struct ActivationSt;
using Activation = ActivationSt *;
struct StreamSt;
using Stream = StreamSt *;
using DataType = int;
using TensorFormat = int;
using ConvolutionMode = int;
using MathType = int;
using FwdAlgo = int;
using ActivationMode = int;
using NanPropagation = int;
using Determinism = int;
struct FwdAlgoPerf {
  FwdAlgo algo;
  Status status;
  float time;
  size_t memory;
  Determinism determinism;
  MathType mathType;
  int reserved[3];
};

constexpr Status kSuccess = 0;
constexpr DataType kFloat = 0;
constexpr TensorFormat kNCHW = 0;
constexpr TensorFormat kNHWC = 1;
constexpr ConvolutionMode kCrossCorrelation = 1;
constexpr MathType kDefaultMath = 0;
constexpr MathType kTensorOpMath = 1;
constexpr MathType kTensorOpMathAllowConversion = 2;
constexpr MathType kFmaMath = 3;
constexpr FwdAlgo kImplicitPrecompGemm = 1;
constexpr ActivationMode kSigmoid = 0;
constexpr ActivationMode kRelu = 1;
constexpr ActivationMode kClippedRelu = 3;
constexpr ActivationMode kIdentity = 5;
constexpr ActivationMode kSwish = 6;
constexpr NanPropagation kPropagateNan = 1;

} // namespace dnn

// X(field, symbol, parameter types): the cuDNN entry points used.
#define TANDEM_CUDNN_FUNCTIONS(X)                                              \
  X(create, cudnnCreate, (dnn::Handle *))                                      \
  X(destroy, cudnnDestroy, (dnn::Handle))                                      \
  X(setStream, cudnnSetStream, (dnn::Handle, dnn::Stream))                     \
  X(createTensor, cudnnCreateTensorDescriptor, (dnn::Tensor *))                \
  X(setTensor4d, cudnnSetTensor4dDescriptor,                                   \
    (dnn::Tensor, dnn::TensorFormat, dnn::DataType, int, int, int, int))       \
  X(destroyTensor, cudnnDestroyTensorDescriptor, (dnn::Tensor))                \
  X(createFilter, cudnnCreateFilterDescriptor, (dnn::Filter *))                \
  X(setFilter4d, cudnnSetFilter4dDescriptor,                                   \
    (dnn::Filter, dnn::DataType, dnn::TensorFormat, int, int, int, int))       \
  X(destroyFilter, cudnnDestroyFilterDescriptor, (dnn::Filter))                \
  X(createConvolution, cudnnCreateConvolutionDescriptor, (dnn::Convolution *)) \
  X(setConvolution2d, cudnnSetConvolution2dDescriptor,                         \
    (dnn::Convolution, int, int, int, int, int, int, dnn::ConvolutionMode,     \
     dnn::DataType))                                                           \
  X(setGroupCount, cudnnSetConvolutionGroupCount, (dnn::Convolution, int))     \
  X(setMathType, cudnnSetConvolutionMathType,                                  \
    (dnn::Convolution, dnn::MathType))                                         \
  X(destroyConvolution, cudnnDestroyConvolutionDescriptor, (dnn::Convolution)) \
  X(createActivation, cudnnCreateActivationDescriptor, (dnn::Activation *))    \
  X(setActivation, cudnnSetActivationDescriptor,                               \
    (dnn::Activation, dnn::ActivationMode, dnn::NanPropagation, double))       \
  X(setSwishBeta, cudnnSetActivationDescriptorSwishBeta,                       \
    (dnn::Activation, double))                                                 \
  X(destroyActivation, cudnnDestroyActivationDescriptor, (dnn::Activation))    \
  X(getAlgorithm, cudnnGetConvolutionForwardAlgorithm_v7,                      \
    (dnn::Handle, const dnn::Tensor, const dnn::Filter,                        \
     const dnn::Convolution, const dnn::Tensor, const int, int *,              \
     dnn::FwdAlgoPerf *))                                                      \
  X(getWorkspaceSize, cudnnGetConvolutionForwardWorkspaceSize,                 \
    (dnn::Handle, const dnn::Tensor, const dnn::Filter,                        \
     const dnn::Convolution, const dnn::Tensor, dnn::FwdAlgo, size_t *))       \
  X(convolutionForward, cudnnConvolutionForward,                               \
    (dnn::Handle, const void *, const dnn::Tensor, const void *,               \
     const dnn::Filter, const void *, const dnn::Convolution, dnn::FwdAlgo,    \
     void *, size_t, const void *, const dnn::Tensor, void *))                 \
  X(biasActivationForward, cudnnConvolutionBiasActivationForward,              \
    (dnn::Handle, const void *, const dnn::Tensor, const void *,               \
     const dnn::Filter, const void *, const dnn::Convolution, dnn::FwdAlgo,    \
     void *, size_t, const void *, const dnn::Tensor, const void *,            \
     const dnn::Tensor, const void *, const dnn::Activation,                   \
     const dnn::Tensor, void *))                                               \
  X(addTensor, cudnnAddTensor,                                                 \
    (dnn::Handle, const void *, const dnn::Tensor, const void *, const void *, \
     const dnn::Tensor, void *))                                               \
  X(activationForward, cudnnActivationForward,                                 \
    (dnn::Handle, dnn::Activation, const void *, const dnn::Tensor,            \
     const void *, const void *, const dnn::Tensor, void *))

#ifdef TANDEM_RUNTIME_CHECK_CUDNN_H
// Compile-time check of the declarations above against cudnn.h. The
// legacy API is deprecated in cuDNN 9 (still shipped and supported).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
template <typename T> struct Ours { using type = T; };
template <typename T> struct Ours<T *> {
  using type = typename Ours<T>::type *;
};
template <typename T> struct Ours<const T> {
  using type = const typename Ours<T>::type;
};
template <> struct Ours<cudnnStatus_t> { using type = dnn::Status; };
template <> struct Ours<cudnnContext> { using type = dnn::ContextSt; };
template <> struct Ours<cudnnTensorStruct> { using type = dnn::TensorSt; };
template <> struct Ours<cudnnFilterStruct> { using type = dnn::FilterSt; };
template <> struct Ours<cudnnConvolutionStruct> {
  using type = dnn::ConvolutionSt;
};
template <> struct Ours<cudnnActivationStruct> {
  using type = dnn::ActivationSt;
};
template <> struct Ours<CUstream_st> { using type = dnn::StreamSt; };
template <> struct Ours<cudnnDataType_t> { using type = dnn::DataType; };
template <> struct Ours<cudnnTensorFormat_t> {
  using type = dnn::TensorFormat;
};
template <> struct Ours<cudnnConvolutionMode_t> {
  using type = dnn::ConvolutionMode;
};
template <> struct Ours<cudnnMathType_t> { using type = dnn::MathType; };
template <> struct Ours<cudnnConvolutionFwdAlgo_t> {
  using type = dnn::FwdAlgo;
};
template <> struct Ours<cudnnActivationMode_t> {
  using type = dnn::ActivationMode;
};
template <> struct Ours<cudnnNanPropagation_t> {
  using type = dnn::NanPropagation;
};
template <> struct Ours<cudnnConvolutionFwdAlgoPerf_t> {
  using type = dnn::FwdAlgoPerf;
};
template <typename F> struct OursFn;
template <typename R, typename... A> struct OursFn<R (*)(A...)> {
  using type = typename Ours<R>::type (*)(typename Ours<A>::type...);
};
static_assert(
    sizeof(cudnnStatus_t) == sizeof(dnn::Status) &&
        sizeof(cudnnDataType_t) == sizeof(dnn::DataType) &&
        sizeof(cudnnTensorFormat_t) == sizeof(dnn::TensorFormat) &&
        sizeof(cudnnConvolutionMode_t) == sizeof(dnn::ConvolutionMode) &&
        sizeof(cudnnMathType_t) == sizeof(dnn::MathType) &&
        sizeof(cudnnConvolutionFwdAlgo_t) == sizeof(dnn::FwdAlgo) &&
        sizeof(cudnnActivationMode_t) == sizeof(dnn::ActivationMode) &&
        sizeof(cudnnNanPropagation_t) == sizeof(dnn::NanPropagation) &&
        sizeof(cudnnDeterminism_t) == sizeof(dnn::Determinism),
    "enum sizes");
static_assert(sizeof(cudnnConvolutionFwdAlgoPerf_t) ==
                      sizeof(dnn::FwdAlgoPerf) &&
                  offsetof(cudnnConvolutionFwdAlgoPerf_t, memory) ==
                      offsetof(dnn::FwdAlgoPerf, memory) &&
                  offsetof(cudnnConvolutionFwdAlgoPerf_t, mathType) ==
                      offsetof(dnn::FwdAlgoPerf, mathType),
              "cudnnConvolutionFwdAlgoPerf_t layout");
static_assert(CUDNN_STATUS_SUCCESS == dnn::kSuccess &&
                  CUDNN_DATA_FLOAT == dnn::kFloat &&
                  CUDNN_TENSOR_NCHW == dnn::kNCHW &&
                  CUDNN_TENSOR_NHWC == dnn::kNHWC &&
                  CUDNN_CROSS_CORRELATION == dnn::kCrossCorrelation &&
                  CUDNN_DEFAULT_MATH == dnn::kDefaultMath &&
                  CUDNN_FMA_MATH == dnn::kFmaMath &&
                  CUDNN_TENSOR_OP_MATH == dnn::kTensorOpMath &&
                  CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION ==
                      dnn::kTensorOpMathAllowConversion &&
                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ==
                      dnn::kImplicitPrecompGemm,
              "cudnn values");
static_assert(CUDNN_ACTIVATION_SIGMOID == dnn::kSigmoid &&
                  CUDNN_ACTIVATION_RELU == dnn::kRelu &&
                  CUDNN_ACTIVATION_CLIPPED_RELU == dnn::kClippedRelu &&
                  CUDNN_ACTIVATION_IDENTITY == dnn::kIdentity &&
                  CUDNN_ACTIVATION_SWISH == dnn::kSwish &&
                  CUDNN_PROPAGATE_NAN == dnn::kPropagateNan,
              "activation modes");
#define TANDEM_CHECK_SIGNATURE(field, symbol, params)                          \
  static_assert(std::is_same<OursFn<decltype(&::symbol)>::type,                \
                             dnn::Status(*) params>::value,                    \
                #symbol " differs from cudnn.h");
TANDEM_CUDNN_FUNCTIONS(TANDEM_CHECK_SIGNATURE)
#undef TANDEM_CHECK_SIGNATURE
#pragma GCC diagnostic pop
#endif

/// The loaded library's entry points.
struct Api {
#define TANDEM_DECLARE_FIELD(field, symbol, params)                            \
  dnn::Status(*field) params = nullptr;
  TANDEM_CUDNN_FUNCTIONS(TANDEM_DECLARE_FIELD)
#undef TANDEM_DECLARE_FIELD
};

/// A built convolution: descriptors and the algorithm cuDNN chose.
struct Plan {
  const Api *api = nullptr;
  dnn::Tensor x = nullptr, y = nullptr, bias = nullptr;
  dnn::Filter w = nullptr;
  dnn::Convolution conv = nullptr;
  /// The fused call's activation (ReLU or identity) and the one applied
  /// after (relu6, sigmoid, swish), or null.
  dnn::Activation fused = nullptr, after = nullptr;
  dnn::FwdAlgo algo = 0;
  size_t workspaceBytes = 0;
  ~Plan() {
    for (dnn::Tensor t : {x, y, bias})
      if (t)
        api->destroyTensor(t);
    if (w)
      api->destroyFilter(w);
    if (conv)
      api->destroyConvolution(conv);
    for (dnn::Activation a : {fused, after})
      if (a)
        api->destroyActivation(a);
  }
};

namespace {

struct Loaded {
  Api api;
  std::string error;
};

/// libcudnn.so.9 beside a PyTorch or JAX pip install (site-packages/nvidia/
/// cudnn/lib) under the active virtual or conda environment, the user's
/// site or the system prefixes; empty when there is none.
std::string pipInstalledCudnn() {
  std::vector<std::string> prefixes;
  for (const char *env : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char *value = std::getenv(env); value && *value)
      prefixes.push_back(value);
  if (const char *home = std::getenv("HOME"); home && *home)
    prefixes.push_back(std::string(home) + "/.local");
  prefixes.push_back("/usr/local");
  prefixes.push_back("/usr");
  for (const std::string &prefix : prefixes)
    for (const char *packages : {"site-packages", "dist-packages"}) {
      std::string pattern = prefix + "/lib/python3*/" + packages +
                            "/nvidia/cudnn/lib/libcudnn.so.9";
      glob_t found = {};
      bool ok =
          glob(pattern.c_str(), 0, nullptr, &found) == 0 && found.gl_pathc > 0;
      std::string path = ok ? found.gl_pathv[0] : "";
      globfree(&found);
      if (ok)
        return path;
    }
  return std::string();
}

Loaded loadLibrary() {
  Loaded loaded;
  OpenedLibrary lib = openLibrary("cuDNN", "TANDEM_CUDNN_LIBRARY",
                                  {"libcudnn.so.9"}, pipInstalledCudnn);
  if (!lib.handle) {
    loaded.error = lib.error;
    return loaded;
  }
#define TANDEM_LOAD_FIELD(field, symbol, params)                               \
  if (!loadSymbol(lib.handle, "cuDNN", #symbol, loaded.api.field,              \
                  loaded.error))                                               \
    return loaded;
  TANDEM_CUDNN_FUNCTIONS(TANDEM_LOAD_FIELD)
#undef TANDEM_LOAD_FIELD
  return loaded;
}

/// Fails with the name of a cuDNN call and its status.
tandem_status_t check(dnn::Status status, const char *call) {
  if (status == dnn::kSuccess)
    return nullptr;
  return tandem_status_make(TANDEM_INTERNAL, "cuDNN: %s failed: status %d",
                            call, status);
}

int i32(int64_t value) { return static_cast<int>(value); }

void *ptr(uint64_t address) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
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
  dnn::Handle handle = nullptr;
  dnn::Status status = api.create(&handle);
  if (status != dnn::kSuccess)
    return tandem_status_make(TANDEM_UNAVAILABLE,
                              "cuDNN: cudnnCreate failed: status %d", status);
  out->reset(new Context(api, handle));
  return nullptr;
}

Context::Context(const Api &api, void *handle) : api(api), handle(handle) {}

Context::~Context() {
  plans.clear();
  api.destroy(static_cast<dnn::Handle>(handle));
}

tandem_status_t Context::getPlan(const tandem_conv_desc_t &d, Plan **out) {
  Key key;
  std::memcpy(key.data(), &d, sizeof(d));
  auto cached = plans.find(key);
  if (cached != plans.end()) {
    *out = cached->second.get();
    return nullptr;
  }
  auto plan = std::make_unique<Plan>();
  plan->api = &api;
  auto h = static_cast<dnn::Handle>(handle);
#define TANDEM_TRY(call, what)                                                 \
  if (tandem_status_t s = check(call, what))                                   \
    return s;
  // Sizes are given in NCHW order whatever the layout; NHWC makes x, y,
  // z and the bias channels-last and the filter KRSC.
  dnn::TensorFormat format =
      (d.flags & TANDEM_CONV_NHWC) ? dnn::kNHWC : dnn::kNCHW;
  TANDEM_TRY(api.createTensor(&plan->x), "cudnnCreateTensorDescriptor");
  TANDEM_TRY(api.setTensor4d(plan->x, format, dnn::kFloat, i32(d.n), i32(d.c),
                             i32(d.h), i32(d.w)),
             "cudnnSetTensor4dDescriptor(x)");
  TANDEM_TRY(api.createTensor(&plan->y), "cudnnCreateTensorDescriptor");
  TANDEM_TRY(api.setTensor4d(plan->y, format, dnn::kFloat, i32(d.n), i32(d.k),
                             i32(d.p), i32(d.q)),
             "cudnnSetTensor4dDescriptor(y)");
  TANDEM_TRY(api.createFilter(&plan->w), "cudnnCreateFilterDescriptor");
  TANDEM_TRY(api.setFilter4d(plan->w, dnn::kFloat, format, i32(d.k),
                             i32(d.c / d.groups), i32(d.r), i32(d.s)),
             "cudnnSetFilter4dDescriptor");
  TANDEM_TRY(api.createConvolution(&plan->conv),
             "cudnnCreateConvolutionDescriptor");
  TANDEM_TRY(api.setConvolution2d(plan->conv, i32(d.pad_h), i32(d.pad_w),
                                  i32(d.stride_h), i32(d.stride_w),
                                  i32(d.dilation_h), i32(d.dilation_w),
                                  dnn::kCrossCorrelation, dnn::kFloat),
             "cudnnSetConvolution2dDescriptor");
  TANDEM_TRY(api.setGroupCount(plan->conv, i32(d.groups)),
             "cudnnSetConvolutionGroupCount");
  // FP32 (no tensor cores) unless a narrower format is allowed: tensor-op
  // math rounds f32 to TF32; allowing conversion lets it round to FP16.
  dnn::MathType math = dnn::kFmaMath;
  if (d.flags & TANDEM_CONV_ALLOW_TF32)
    math = dnn::kTensorOpMath;
  else if (d.flags & TANDEM_CONV_ALLOW_FP16)
    math = dnn::kTensorOpMathAllowConversion;
  TANDEM_TRY(api.setMathType(plan->conv, math), "cudnnSetConvolutionMathType");
  bool fusedCall = conv::hasBias(d);
  if (fusedCall) {
    TANDEM_TRY(api.createTensor(&plan->bias), "cudnnCreateTensorDescriptor");
    TANDEM_TRY(
        api.setTensor4d(plan->bias, format, dnn::kFloat, 1, i32(d.k), 1, 1),
        "cudnnSetTensor4dDescriptor(bias)");
    TANDEM_TRY(api.createActivation(&plan->fused),
               "cudnnCreateActivationDescriptor");
    TANDEM_TRY(api.setActivation(plan->fused,
                                 d.activation == TANDEM_CONV_ACT_RELU
                                     ? dnn::kRelu
                                     : dnn::kIdentity,
                                 dnn::kPropagateNan, 0.0),
               "cudnnSetActivationDescriptor");
  }
  bool reluFused = fusedCall && d.activation == TANDEM_CONV_ACT_RELU;
  if (d.activation != TANDEM_CONV_ACT_NONE && !reluFused) {
    TANDEM_TRY(api.createActivation(&plan->after),
               "cudnnCreateActivationDescriptor");
    dnn::ActivationMode mode = dnn::kRelu;
    double coef = 0.0;
    if (d.activation == TANDEM_CONV_ACT_RELU6)
      mode = dnn::kClippedRelu, coef = 6.0;
    else if (d.activation == TANDEM_CONV_ACT_SIGMOID)
      mode = dnn::kSigmoid;
    else if (d.activation == TANDEM_CONV_ACT_SWISH)
      mode = dnn::kSwish;
    TANDEM_TRY(api.setActivation(plan->after, mode, dnn::kPropagateNan, coef),
               "cudnnSetActivationDescriptor");
    if (mode == dnn::kSwish)
      TANDEM_TRY(api.setSwishBeta(plan->after, 1.0),
                 "cudnnSetActivationDescriptorSwishBeta");
  }
  // The algorithm: the fused call with an identity activation supports
  // only IMPLICIT_PRECOMP_GEMM; otherwise the heuristics' best that fits
  // the workspace.
  if (fusedCall && !reluFused) {
    plan->algo = dnn::kImplicitPrecompGemm;
  } else {
    dnn::FwdAlgoPerf perf[8] = {};
    int found = 0;
    TANDEM_TRY(api.getAlgorithm(h, plan->x, plan->w, plan->conv, plan->y, 8,
                                &found, perf),
               "cudnnGetConvolutionForwardAlgorithm_v7");
    bool chosen = false;
    for (int i = 0; i < found && !chosen; ++i)
      if (perf[i].status == dnn::kSuccess &&
          perf[i].memory <= kWorkspaceBytes) {
        plan->algo = perf[i].algo;
        chosen = true;
        // The algorithm runs with the math type the heuristics rated it
        // with (never wider than the descriptor allowed), as cuDNN's
        // documentation and PyTorch do.
        if (perf[i].mathType != math)
          TANDEM_TRY(api.setMathType(plan->conv, perf[i].mathType),
                     "cudnnSetConvolutionMathType");
      }
    if (!chosen)
      return tandem_status_make(
          TANDEM_INTERNAL,
          "cuDNN: no algorithm within the %llu-byte workspace for a %s "
          "convolution of %lldx%lldx%lldx%lld by %lldx%lldx%lldx%lld",
          static_cast<unsigned long long>(kWorkspaceBytes),
          conv::activationName(d.activation), static_cast<long long>(d.n),
          static_cast<long long>(d.c), static_cast<long long>(d.h),
          static_cast<long long>(d.w), static_cast<long long>(d.k),
          static_cast<long long>(d.c / d.groups), static_cast<long long>(d.r),
          static_cast<long long>(d.s));
  }
  TANDEM_TRY(api.getWorkspaceSize(h, plan->x, plan->w, plan->conv, plan->y,
                                  plan->algo, &plan->workspaceBytes),
             "cudnnGetConvolutionForwardWorkspaceSize");
#undef TANDEM_TRY
  if (plan->workspaceBytes > kWorkspaceBytes)
    return tandem_status_make(
        TANDEM_INTERNAL,
        "cuDNN: algorithm %d needs a workspace of %llu bytes, more than the "
        "%llu the stream has",
        plan->algo, static_cast<unsigned long long>(plan->workspaceBytes),
        static_cast<unsigned long long>(kWorkspaceBytes));
  *out = plan.get();
  plans.emplace(key, std::move(plan));
  return nullptr;
}

tandem_status_t Context::prepare(const tandem_conv_desc_t &d,
                                 uint64_t *workspaceBytes) {
  std::lock_guard<std::mutex> lock(mutex);
  Plan *plan = nullptr;
  if (tandem_status_t s = getPlan(d, &plan))
    return s;
  *workspaceBytes = plan->workspaceBytes;
  return nullptr;
}

int Context::algorithmOf(const tandem_conv_desc_t &d) {
  Key key;
  std::memcpy(key.data(), &d, sizeof(d));
  std::lock_guard<std::mutex> lock(mutex);
  auto found = plans.find(key);
  return found == plans.end() ? -1 : found->second->algo;
}

tandem_status_t Context::conv(const tandem_conv_desc_t &d, uint64_t x,
                              uint64_t w, uint64_t y, uint64_t bias, uint64_t z,
                              uint64_t workspace, void *stream) {
  std::lock_guard<std::mutex> lock(mutex);
  Plan *plan = nullptr;
  if (tandem_status_t s = getPlan(d, &plan))
    return s;
  auto h = static_cast<dnn::Handle>(handle);
  if (tandem_status_t s = check(
          api.setStream(h, static_cast<dnn::Stream>(stream)), "cudnnSetStream"))
    return s;
  const float one = 1.0f, zero = 0.0f;
  bool residual = conv::hasResidual(d);
  if (plan->fused) {
    // y = act(conv(x) + alpha2 z + bias); without a residual z is y, scaled
    // by 0.
    if (tandem_status_t s =
            check(api.biasActivationForward(
                      h, &one, plan->x, ptr(x), plan->w, ptr(w), plan->conv,
                      plan->algo, ptr(workspace), plan->workspaceBytes,
                      residual ? &one : &zero, plan->y, ptr(residual ? z : y),
                      plan->bias, ptr(bias), plan->fused, plan->y, ptr(y)),
                  "cudnnConvolutionBiasActivationForward"))
      return s;
  } else {
    if (tandem_status_t s =
            check(api.convolutionForward(h, &one, plan->x, ptr(x), plan->w,
                                         ptr(w), plan->conv, plan->algo,
                                         ptr(workspace), plan->workspaceBytes,
                                         &zero, plan->y, ptr(y)),
                  "cudnnConvolutionForward"))
      return s;
    if (residual)
      if (tandem_status_t s = check(
              api.addTensor(h, &one, plan->y, ptr(z), &one, plan->y, ptr(y)),
              "cudnnAddTensor"))
        return s;
  }
  if (plan->after)
    return check(api.activationForward(h, plan->after, &one, plan->y, ptr(y),
                                       &zero, plan->y, ptr(y)),
                 "cudnnActivationForward");
  return nullptr;
}

} // namespace cudnn
} // namespace tandem
