/* edgerun's C API: TensorFlow Lite's C API (c_api.h, c_api_types.h, the tensor part of common.h
 * and the usual experimental functions), with the same names, types, enum values and struct
 * layouts, so that a program or language binding written for TFLite's C API compiles unchanged
 * (`-I include`, via include/tensorflow/lite/c/c_api.h) and loads libtensorflowlite_c.so (edgerun)
 * without recompiling.
 *
 * Valid C99 and C++. Nothing here aborts: a bad argument, a bad model or a failing call returns
 * NULL or a TfLiteStatus error and reports the reason through the error reporter (stderr unless
 * TfLiteInterpreterOptionsSetErrorReporter installed another one).
 *
 * What differs from TFLite, by design:
 *  - delegates (TfLiteInterpreterOptionsAddDelegate) are accepted and not applied: every op runs on
 *    edgerun's own kernels, as in TFLite when a delegate claims no nodes;
 *  - custom kernels (TfLiteInterpreterOptionsAddCustomOp) get a TfLiteContext with what kernels
 *    use; the delegate-only parts of the context return kTfLiteError.
 *
 * Usage (the same as with TFLite):
 *   TfLiteModel* model = TfLiteModelCreateFromFile("model.tflite");
 *   TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
 *   TfLiteInterpreterOptionsSetNumThreads(options, 2);
 *   TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
 *   TfLiteInterpreterAllocateTensors(interpreter);
 *   TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(interpreter, 0), in, in_bytes);
 *   TfLiteInterpreterInvoke(interpreter);
 *   TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(interpreter, 0), out, out_bytes);
 *   TfLiteInterpreterDelete(interpreter);
 *   TfLiteInterpreterOptionsDelete(options);
 *   TfLiteModelDelete(model);
 */
#ifndef EDGERUN_C_API_H_
#define EDGERUN_C_API_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef TFL_CAPI_EXPORT
#define TFL_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------
 * Types (c_api_types.h). The numeric values are TFLite's: they are part of the ABI. */

typedef enum TfLiteStatus {
  kTfLiteOk = 0,
  kTfLiteError = 1,
  kTfLiteDelegateError = 2,
  kTfLiteApplicationError = 3,
  kTfLiteDelegateDataNotFound = 4,
  kTfLiteDelegateDataWriteError = 5,
  kTfLiteDelegateDataReadError = 6,
  kTfLiteUnresolvedOps = 7,
  kTfLiteCancelled = 8,
  kTfLiteOutputShapeNotKnown = 9,
} TfLiteStatus;

/* Element types. Not the schema's numbering: TfLiteType has kTfLiteNoType at 0. */
typedef enum {
  kTfLiteNoType = 0,
  kTfLiteFloat32 = 1,
  kTfLiteInt32 = 2,
  kTfLiteUInt8 = 3,
  kTfLiteInt64 = 4,
  kTfLiteString = 5,
  kTfLiteBool = 6,
  kTfLiteInt16 = 7,
  kTfLiteComplex64 = 8,
  kTfLiteInt8 = 9,
  kTfLiteFloat16 = 10,
  kTfLiteFloat64 = 11,
  kTfLiteComplex128 = 12,
  kTfLiteUInt64 = 13,
  kTfLiteResource = 14,
  kTfLiteVariant = 15,
  kTfLiteUInt32 = 16,
  kTfLiteUInt16 = 17,
  kTfLiteInt4 = 18,
  kTfLiteBFloat16 = 19,
  kTfLiteInt2 = 20,
  kTfLiteUInt4 = 21,
} TfLiteType;

/* real_value = scale * (quantized_value - zero_point). Per-tensor only; {0, 0} otherwise. */
typedef struct TfLiteQuantizationParams {
  float scale;
  int32_t zero_point;
} TfLiteQuantizationParams;

typedef enum TfLiteDimensionType {
  kTfLiteDimDense = 0,
  kTfLiteDimSparseCSR,
} TfLiteDimensionType;

typedef struct TfLiteOpaqueContext TfLiteOpaqueContext;
typedef struct TfLiteOpaqueNode TfLiteOpaqueNode;
typedef struct TfLiteOpaqueTensor TfLiteOpaqueTensor;
typedef struct TfLiteDelegate TfLiteDelegate; /* defined below */
typedef struct TfLiteOpaqueDelegateStruct TfLiteOpaqueDelegateStruct;
#if defined(TFLITE_WITH_STABLE_ABI) || defined(TFLITE_USE_OPAQUE_DELEGATE)
typedef TfLiteOpaqueDelegateStruct TfLiteOpaqueDelegate;
#else
typedef TfLiteDelegate TfLiteOpaqueDelegate;
#endif

/* ------------------------------------------------------------------------------------------
 * The tensor struct and what it refers to (common.h). The layout is TFLite's, so that code that
 * reads fields (tensor->dims->data[i], tensor->data.f, tensor->params.scale) works unchanged.
 * The interpreter owns every tensor; its fields are current after each call of this API. */

typedef struct TfLiteIntArray {
  int size;
  int data[];
} TfLiteIntArray;

typedef struct TfLiteFloatArray {
  int size;
  float data[];
} TfLiteFloatArray;

typedef struct TfLiteComplex64 {
  float re, im;
} TfLiteComplex64;

typedef struct TfLiteComplex128 {
  double re, im;
} TfLiteComplex128;

typedef struct TfLiteFloat16 {
  uint16_t data;
} TfLiteFloat16;

typedef struct TfLiteBFloat16 {
  uint16_t data;
} TfLiteBFloat16;

typedef enum TfLiteQuantizationType {
  kTfLiteNoQuantization = 0,
  kTfLiteAffineQuantization = 1,
  kTfLiteBlockwiseQuantization = 2,
} TfLiteQuantizationType;

typedef struct TfLiteQuantization {
  TfLiteQuantizationType type;
  void* params; /* TfLiteAffineQuantization* when type is kTfLiteAffineQuantization */
} TfLiteQuantization;

typedef struct TfLiteAffineQuantization {
  TfLiteFloatArray* scale;
  TfLiteIntArray* zero_point;
  int32_t quantized_dimension;
} TfLiteAffineQuantization;

typedef union TfLitePtrUnion {
  int32_t* i32;
  uint32_t* u32;
  int64_t* i64;
  uint64_t* u64;
  float* f;
  TfLiteFloat16* f16;
  TfLiteBFloat16* bf16;
  double* f64;
  char* raw;
  const char* raw_const;
  uint8_t* uint8;
  bool* b;
  int16_t* i16;
  uint16_t* ui16;
  TfLiteComplex64* c64;
  TfLiteComplex128* c128;
  int8_t* int8;
  void* data;
} TfLitePtrUnion;

typedef enum TfLiteAllocationType {
  kTfLiteMemNone = 0,
  kTfLiteMmapRo,
  kTfLiteArenaRw,
  kTfLiteArenaRwPersistent,
  kTfLiteDynamic,
  kTfLitePersistentRo,
  kTfLiteCustom,
  kTfLiteVariantObject,
  kTfLiteNonCpu,
} TfLiteAllocationType;

typedef int TfLiteBufferHandle;
enum {
  kTfLiteNullBufferHandle = -1,
};

typedef struct TfLiteDimensionMetadata {
  TfLiteDimensionType format;
  int dense_size;
  TfLiteIntArray* array_segments;
  TfLiteIntArray* array_indices;
} TfLiteDimensionMetadata;

typedef struct TfLiteSparsity {
  TfLiteIntArray* traversal_order;
  TfLiteIntArray* block_map;
  TfLiteDimensionMetadata* dim_metadata;
  int dim_metadata_size;
} TfLiteSparsity;

typedef struct TfLiteTensor {
  TfLiteType type;
  TfLitePtrUnion data;            /* NULL until allocated */
  TfLiteIntArray* dims;
  TfLiteQuantizationParams params;
  TfLiteAllocationType allocation_type;
  size_t bytes;
  const void* allocation;
  const char* name;
  struct TfLiteDelegate* delegate;
  TfLiteBufferHandle buffer_handle;
  bool data_is_stale;
  bool is_variable;
  TfLiteQuantization quantization;
  TfLiteSparsity* sparsity;       /* NULL (edgerun does not expose sparse layouts here) */
  const TfLiteIntArray* dims_signature; /* -1 for dynamic dimensions; NULL when the file has none */
} TfLiteTensor;

/* Helpers of common.h that C programs use with the fields above. */
TFL_CAPI_EXPORT extern const char* TfLiteTypeGetName(TfLiteType type);
TFL_CAPI_EXPORT extern size_t TfLiteIntArrayGetSizeInBytes(int size);
TFL_CAPI_EXPORT extern TfLiteIntArray* TfLiteIntArrayCreate(int size);
TFL_CAPI_EXPORT extern TfLiteIntArray* TfLiteIntArrayCopy(const TfLiteIntArray* src);
TFL_CAPI_EXPORT extern int TfLiteIntArrayEqual(const TfLiteIntArray* a, const TfLiteIntArray* b);
TFL_CAPI_EXPORT extern int TfLiteIntArrayEqualsArray(const TfLiteIntArray* a, int b_size,
                                                     const int b_data[]);
TFL_CAPI_EXPORT extern void TfLiteIntArrayFree(TfLiteIntArray* a);
TFL_CAPI_EXPORT extern int TfLiteFloatArrayGetSizeInBytes(int size);
TFL_CAPI_EXPORT extern TfLiteFloatArray* TfLiteFloatArrayCreate(int size);
TFL_CAPI_EXPORT extern void TfLiteFloatArrayFree(TfLiteFloatArray* a);

/* ------------------------------------------------------------------------------------------
 * Kernels (common.h): what a custom op written for TFLite sees. TfLiteInterpreterOptionsAddCustomOp
 * runs such a kernel inside edgerun; the context supports what kernels use (tensors, ResizeTensor,
 * ReportError, persistent and scratch buffers, model metadata), not the delegate-only calls (they
 * return kTfLiteError). */

#define kTfLiteOptionalTensor (-1)

typedef enum TfLiteExternalContextType {
  kTfLiteEigenContext = 0,
  kTfLiteGemmLowpContext = 1,
  kTfLiteEdgeTpuContext = 2,
  kTfLiteCpuBackendContext = 3,
  kTfLiteLiteRtBufferContext = 4,
  kTfLiteMaxExternalContexts = 5
} TfLiteExternalContextType;

struct TfLiteContext;
struct TfLiteRegistration;
struct TfLiteAsyncKernel;
struct TfLiteOpaqueDelegateBuilder;
typedef struct TfLiteDelegateParams TfLiteDelegateParams;
typedef struct TfLiteOperator TfLiteOperator;

typedef struct TfLiteExternalContext {
  TfLiteExternalContextType type;
  TfLiteStatus (*Refresh)(struct TfLiteContext* context);
} TfLiteExternalContext;

typedef struct TfLiteNode {
  TfLiteIntArray* inputs;   /* tensor indices; kTfLiteOptionalTensor for an omitted input */
  TfLiteIntArray* outputs;
  TfLiteIntArray* intermediates;
  TfLiteIntArray* temporaries;
  void* user_data;          /* what the registration's init returned */
  void* builtin_data;       /* NULL for custom ops */
  const void* custom_initial_data; /* the op's custom_options */
  int custom_initial_data_size;
  struct TfLiteDelegate* delegate;
  bool might_have_side_effect;
} TfLiteNode;

typedef struct TfLiteEvalTensor {
  TfLitePtrUnion data;
  TfLiteIntArray* dims;
  TfLiteType type;
} TfLiteEvalTensor;

typedef struct TfLiteContext {
  size_t tensors_size;
  TfLiteStatus (*GetExecutionPlan)(struct TfLiteContext* context, TfLiteIntArray** execution_plan);
  TfLiteTensor* tensors;
  void* impl_;
  /* Takes ownership of new_size. */
  TfLiteStatus (*ResizeTensor)(struct TfLiteContext*, TfLiteTensor* tensor, TfLiteIntArray* new_size);
  void (*ReportError)(struct TfLiteContext*, const char* msg, ...);
  TfLiteStatus (*AddTensors)(struct TfLiteContext*, int tensors_to_add, int* first_new_tensor_index);
  TfLiteStatus (*GetNodeAndRegistration)(struct TfLiteContext*, int node_index, TfLiteNode** node,
                                         struct TfLiteRegistration** registration);
  TfLiteStatus (*ReplaceNodeSubsetsWithDelegateKernels)(struct TfLiteContext*,
                                                        struct TfLiteRegistration registration,
                                                        const TfLiteIntArray* nodes_to_replace,
                                                        struct TfLiteDelegate* delegate);
  int recommended_num_threads;
  TfLiteExternalContext* (*GetExternalContext)(struct TfLiteContext*, TfLiteExternalContextType);
  void (*SetExternalContext)(struct TfLiteContext*, TfLiteExternalContextType, TfLiteExternalContext*);
  bool allow_fp32_relax_to_fp16;
  void* profiler;
  void* (*AllocatePersistentBuffer)(struct TfLiteContext* ctx, size_t bytes);
  TfLiteStatus (*AllocateBufferForEval)(struct TfLiteContext* ctx, size_t bytes, void** ptr);
  TfLiteStatus (*RequestScratchBufferInArena)(struct TfLiteContext* ctx, size_t bytes, int* buffer_idx);
  void* (*GetScratchBuffer)(struct TfLiteContext* ctx, int buffer_idx);
  TfLiteStatus (*ResizeTensorExplicit)(struct TfLiteContext* ctx, TfLiteTensor* tensor, int dims,
                                       const int* shape);
  TfLiteStatus (*PreviewDelegatePartitioning)(struct TfLiteContext* context,
                                              const TfLiteIntArray* nodes_to_replace,
                                              TfLiteDelegateParams** partition_params_array,
                                              int* num_partitions);
  TfLiteTensor* (*GetTensor)(const struct TfLiteContext* context, int tensor_idx);
  TfLiteEvalTensor* (*GetEvalTensor)(const struct TfLiteContext* context, int tensor_idx);
  TfLiteStatus (*GetModelMetadata)(const struct TfLiteContext* context, const char* name, const char** ptr,
                                   size_t* bytes);
  TfLiteStatus (*AcquireSubgraphContext)(struct TfLiteContext* context, int subgraph_index,
                                         struct TfLiteContext** acquired_context);
  TfLiteStatus (*ReleaseSubgraphContext)(struct TfLiteContext* context, int subgraph_index);
} TfLiteContext;

/* A kernel. edgerun calls init, free, prepare and invoke (the first four members, so that
 * registrations compiled against older TFLite headers work too). */
typedef struct TfLiteRegistration {
  void* (*init)(TfLiteContext* context, const char* buffer, size_t length);
  void (*free)(TfLiteContext* context, void* buffer);
  TfLiteStatus (*prepare)(TfLiteContext* context, TfLiteNode* node);
  TfLiteStatus (*invoke)(TfLiteContext* context, TfLiteNode* node);
  const char* (*profiling_string)(const TfLiteContext* context, const TfLiteNode* node);
  int32_t builtin_code;
  const char* custom_name;
  int version;
  TfLiteOperator* registration_external;
  struct TfLiteAsyncKernel* (*async_kernel)(TfLiteContext* context, TfLiteNode* node);
  uint64_t inplace_operator;
} TfLiteRegistration;

typedef enum TfLiteDelegateFlags {
  kTfLiteDelegateFlagsNone = 0,
  kTfLiteDelegateFlagsAllowDynamicTensors = 1,
  kTfLiteDelegateFlagsRequirePropagatedShapes = 2,
  kTfLiteDelegateFlagsPerOperatorProfiling = 4,
  kTfLiteDelegateFlagsHintFullyDelegatedToSingleDelegate = 8,
} TfLiteDelegateFlags;

struct TfLiteDelegate {
  void* data_;
  TfLiteStatus (*Prepare)(TfLiteContext* context, struct TfLiteDelegate* delegate);
  TfLiteStatus (*CopyFromBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate,
                                       TfLiteBufferHandle buffer_handle, TfLiteTensor* tensor);
  TfLiteStatus (*CopyToBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate,
                                     TfLiteBufferHandle buffer_handle, TfLiteTensor* tensor);
  void (*FreeBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate, TfLiteBufferHandle* handle);
  int64_t flags;
  struct TfLiteOpaqueDelegateBuilder* opaque_delegate_builder;
};

/* A delegate with every member zero / NULL (kTfLiteNullBufferHandle-free, no flags). */
TFL_CAPI_EXPORT extern TfLiteDelegate TfLiteDelegateCreate(void);

/* The error-checking macros kernels are written with (same names and behaviour as TFLite's). */
#define TF_LITE_KERNEL_LOG(context, ...)            \
  do {                                              \
    (context)->ReportError((context), __VA_ARGS__); \
  } while (0)
#define TF_LITE_MAYBE_KERNEL_LOG(context, ...)                           \
  do {                                                                   \
    if ((context) != NULL) (context)->ReportError((context), __VA_ARGS__); \
  } while (0)
#define TF_LITE_ENSURE_MSG(context, value, ...)                \
  do {                                                         \
    if (!(value)) {                                            \
      TF_LITE_KERNEL_LOG((context), __FILE__ " " __VA_ARGS__); \
      return kTfLiteError;                                     \
    }                                                          \
  } while (0)
#define TF_LITE_ENSURE(context, a)                                                      \
  do {                                                                                  \
    if (!(a)) {                                                                         \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s was not true.", __FILE__, __LINE__, #a); \
      return kTfLiteError;                                                              \
    }                                                                                   \
  } while (0)
#define TF_LITE_ENSURE_STATUS(a) \
  do {                           \
    const TfLiteStatus s = (a);  \
    if (s != kTfLiteOk) return s; \
  } while (0)
#define TF_LITE_ENSURE_OK(context, status) TF_LITE_ENSURE_STATUS(status)
#define TF_LITE_ENSURE_EQ(context, a, b)                                                          \
  do {                                                                                            \
    if ((a) != (b)) {                                                                             \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s != %s (%d != %d)", __FILE__, __LINE__, #a, #b, \
                         (int)(a), (int)(b));                                                     \
      return kTfLiteError;                                                                        \
    }                                                                                             \
  } while (0)
#define TF_LITE_ENSURE_TYPES_EQ(context, a, b)                                                   \
  do {                                                                                           \
    if ((a) != (b)) {                                                                            \
      TF_LITE_KERNEL_LOG((context), "%s:%d %s != %s (%s != %s)", __FILE__, __LINE__, #a, #b, \
                         TfLiteTypeGetName(a), TfLiteTypeGetName(b));                            \
      return kTfLiteError;                                                                       \
    }                                                                                            \
  } while (0)

/* ------------------------------------------------------------------------------------------
 * Opaque objects (c_api.h). */

typedef struct TfLiteModel TfLiteModel;
typedef struct TfLiteInterpreterOptions TfLiteInterpreterOptions;
typedef struct TfLiteInterpreter TfLiteInterpreter;
typedef struct TfLiteSignatureRunner TfLiteSignatureRunner;

/* Error reporter: a printf-style format and its arguments. */
typedef void (*TfLiteErrorReporterFunction)(void* user_data, const char* format, va_list args);

/* ------------------------------------------------------------------------------------------
 * Versions. */

/* The TFLite version whose C API this library provides, with edgerun's as semver build metadata:
 * "2.18.0+edgerun.0.1.0". */
TFL_CAPI_EXPORT extern const char* TfLiteVersion(void);
TFL_CAPI_EXPORT extern const char* TfLiteExtensionApisVersion(void);
/* The model schema version read (3). */
TFL_CAPI_EXPORT extern int TfLiteSchemaVersion(void);

/* ------------------------------------------------------------------------------------------
 * Models. A model can be shared by many interpreters and deleted once they are created. */

/* The caller keeps `model_data` alive and unchanged while the model or an interpreter built from
 * it lives. NULL on failure (reported on stderr). */
TFL_CAPI_EXPORT extern TfLiteModel* TfLiteModelCreate(const void* model_data, size_t model_size);
TFL_CAPI_EXPORT extern TfLiteModel* TfLiteModelCreateWithErrorReporter(
    const void* model_data, size_t model_size,
    void (*reporter)(void* user_data, const char* format, va_list args), void* user_data);
TFL_CAPI_EXPORT extern TfLiteModel* TfLiteModelCreateFromFile(const char* model_path);
TFL_CAPI_EXPORT extern TfLiteModel* TfLiteModelCreateFromFileWithErrorReporter(
    const char* model_path, void (*reporter)(void* user_data, const char* format, va_list args),
    void* user_data);
TFL_CAPI_EXPORT extern void TfLiteModelDelete(TfLiteModel* model);

/* ------------------------------------------------------------------------------------------
 * Interpreter options. */

TFL_CAPI_EXPORT extern TfLiteInterpreterOptions* TfLiteInterpreterOptionsCreate(void);
TFL_CAPI_EXPORT extern TfLiteInterpreterOptions* TfLiteInterpreterOptionsCopy(
    const TfLiteInterpreterOptions* from);
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsDelete(TfLiteInterpreterOptions* options);
/* -1 (the default) lets the runtime choose (edgerun: 1 thread). */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsSetNumThreads(TfLiteInterpreterOptions* options,
                                                                  int32_t num_threads);
/* Accepted, not applied (see the top of this file). The caller keeps ownership. */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsAddDelegate(TfLiteInterpreterOptions* options,
                                                                TfLiteOpaqueDelegate* delegate);
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsSetErrorReporter(
    TfLiteInterpreterOptions* options,
    void (*reporter)(void* user_data, const char* format, va_list args), void* user_data);
/* Accepted for source compatibility; edgerun has no cancellation (TfLiteInterpreterCancel then
 * returns kTfLiteError, as TFLite does when cancellation is disabled). */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterOptionsEnableCancellation(
    TfLiteInterpreterOptions* options, bool enable);
/* No effect: edgerun runs every op on its own kernels already. */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsSetUseNNAPI(TfLiteInterpreterOptions* options,
                                                                bool enable);
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsSetEnableDelegateFallback(
    TfLiteInterpreterOptions* options, bool enable);
/* Runs the model's custom op `name` (versions min_version..max_version) with a kernel written
 * against TFLite's TfLiteRegistration (init / free / prepare / invoke are used). The options keep
 * a copy of `name` and of the four function pointers; the kernel's code must outlive the
 * interpreters. Replaces edgerun's own kernel of that name, if any. */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsAddCustomOp(TfLiteInterpreterOptions* options,
                                                                const char* name,
                                                                const TfLiteRegistration* registration,
                                                                int32_t min_version, int32_t max_version);

/* ------------------------------------------------------------------------------------------
 * Interpreter. */

/* NULL on failure (an op edgerun does not implement, a model edgerun cannot build), with the
 * reason sent to the options' error reporter. `model` and `optional_options` may be deleted
 * right after. Tensors must be allocated (TfLiteInterpreterAllocateTensors) before Invoke. */
TFL_CAPI_EXPORT extern TfLiteInterpreter* TfLiteInterpreterCreate(
    const TfLiteModel* model, const TfLiteInterpreterOptions* optional_options);
TFL_CAPI_EXPORT extern void TfLiteInterpreterDelete(TfLiteInterpreter* interpreter);

TFL_CAPI_EXPORT extern int32_t TfLiteInterpreterGetInputTensorCount(
    const TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT extern const int* TfLiteInterpreterInputTensorIndices(
    const TfLiteInterpreter* interpreter);
/* NULL when `input_index` is out of range. */
TFL_CAPI_EXPORT extern TfLiteTensor* TfLiteInterpreterGetInputTensor(
    const TfLiteInterpreter* interpreter, int32_t input_index);
/* Any shape: only the ops' own checks apply (TFLite's non-strict resize). AllocateTensors must
 * follow. */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterResizeInputTensor(
    TfLiteInterpreter* interpreter, int32_t input_index, const int* input_dims,
    int32_t input_dims_size);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterAllocateTensors(TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterInvoke(TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT extern int32_t TfLiteInterpreterGetOutputTensorCount(
    const TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT extern const int* TfLiteInterpreterOutputTensorIndices(
    const TfLiteInterpreter* interpreter);
/* NULL when `output_index` is out of range. */
TFL_CAPI_EXPORT extern const TfLiteTensor* TfLiteInterpreterGetOutputTensor(
    const TfLiteInterpreter* interpreter, int32_t output_index);
/* Any tensor of the primary subgraph by its index in the model; NULL when out of range. */
TFL_CAPI_EXPORT extern TfLiteTensor* TfLiteInterpreterGetTensor(const TfLiteInterpreter* interpreter,
                                                                int index);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterCancel(const TfLiteInterpreter* interpreter);

/* Experimental (c_api_experimental.h). */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterResetVariableTensors(
    TfLiteInterpreter* interpreter);
/* Only dimensions that are -1 in the tensor's shape signature may change. */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterResizeInputTensorStrict(
    TfLiteInterpreter* interpreter, int32_t input_index, const int* input_dims,
    int32_t input_dims_size);
TFL_CAPI_EXPORT extern int32_t TfLiteInterpreterGetInputTensorIndex(
    const TfLiteInterpreter* interpreter, int32_t input_index);
TFL_CAPI_EXPORT extern int32_t TfLiteInterpreterGetOutputTensorIndex(
    const TfLiteInterpreter* interpreter, int32_t output_index);
TFL_CAPI_EXPORT extern int32_t TfLiteInterpreterGetVariableTensorCount(
    const TfLiteInterpreter* interpreter);
TFL_CAPI_EXPORT extern TfLiteTensor* TfLiteInterpreterGetVariableTensor(
    const TfLiteInterpreter* interpreter, int32_t variable_index);

/* ------------------------------------------------------------------------------------------
 * Signatures (named entry points). A runner must be deleted before its interpreter. */

TFL_CAPI_EXPORT extern int32_t TfLiteInterpreterGetSignatureCount(
    const TfLiteInterpreter* interpreter);
/* NULL when out of range. Lives as long as the interpreter. */
TFL_CAPI_EXPORT extern const char* TfLiteInterpreterGetSignatureKey(
    const TfLiteInterpreter* interpreter, int32_t signature_index);
/* NULL when there is no such key. */
TFL_CAPI_EXPORT extern TfLiteSignatureRunner* TfLiteInterpreterGetSignatureRunner(
    const TfLiteInterpreter* interpreter, const char* signature_key);
TFL_CAPI_EXPORT extern size_t TfLiteSignatureRunnerGetInputCount(
    const TfLiteSignatureRunner* signature_runner);
TFL_CAPI_EXPORT extern const char* TfLiteSignatureRunnerGetInputName(
    const TfLiteSignatureRunner* signature_runner, int32_t input_index);
/* Strict: only dimensions that are -1 in the shape signature may change. */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteSignatureRunnerResizeInputTensor(
    TfLiteSignatureRunner* signature_runner, const char* input_name, const int* input_dims,
    int32_t input_dims_size);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteSignatureRunnerAllocateTensors(
    TfLiteSignatureRunner* signature_runner);
TFL_CAPI_EXPORT extern TfLiteTensor* TfLiteSignatureRunnerGetInputTensor(
    TfLiteSignatureRunner* signature_runner, const char* input_name);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteSignatureRunnerInvoke(
    TfLiteSignatureRunner* signature_runner);
TFL_CAPI_EXPORT extern size_t TfLiteSignatureRunnerGetOutputCount(
    const TfLiteSignatureRunner* signature_runner);
TFL_CAPI_EXPORT extern const char* TfLiteSignatureRunnerGetOutputName(
    const TfLiteSignatureRunner* signature_runner, int32_t output_index);
TFL_CAPI_EXPORT extern const TfLiteTensor* TfLiteSignatureRunnerGetOutputTensor(
    const TfLiteSignatureRunner* signature_runner, const char* output_name);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteSignatureRunnerCancel(
    TfLiteSignatureRunner* signature_runner);
TFL_CAPI_EXPORT extern void TfLiteSignatureRunnerDelete(TfLiteSignatureRunner* signature_runner);

/* ------------------------------------------------------------------------------------------
 * Tensors. A NULL tensor gives kTfLiteNoType / -1 / 0 / NULL / kTfLiteError. */

TFL_CAPI_EXPORT extern TfLiteType TfLiteTensorType(const TfLiteTensor* tensor);
/* -1 when the tensor has no dimensions set. */
TFL_CAPI_EXPORT extern int32_t TfLiteTensorNumDims(const TfLiteTensor* tensor);
/* -1 when `dim_index` is out of range. */
TFL_CAPI_EXPORT extern int32_t TfLiteTensorDim(const TfLiteTensor* tensor, int32_t dim_index);
TFL_CAPI_EXPORT extern size_t TfLiteTensorByteSize(const TfLiteTensor* tensor);
/* NULL before AllocateTensors (and for outputs sized at Invoke, before Invoke). */
TFL_CAPI_EXPORT extern void* TfLiteTensorData(const TfLiteTensor* tensor);
TFL_CAPI_EXPORT extern const char* TfLiteTensorName(const TfLiteTensor* tensor);
TFL_CAPI_EXPORT extern TfLiteQuantizationParams TfLiteTensorQuantizationParams(
    const TfLiteTensor* tensor);
/* kTfLiteError (reported) unless `input_data_size` equals the tensor's byte size and the tensor
 * has memory. */
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteTensorCopyFromBuffer(TfLiteTensor* tensor,
                                                               const void* input_data,
                                                               size_t input_data_size);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteTensorCopyToBuffer(const TfLiteTensor* output_tensor,
                                                             void* output_data,
                                                             size_t output_data_size);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* EDGERUN_C_API_H_ */
