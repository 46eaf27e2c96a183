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
 *  - custom kernels through TfLiteRegistration are not supported (TfLiteInterpreterCreate reports
 *    the model's custom ops that edgerun does not know).
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
typedef struct TfLiteDelegate TfLiteDelegate;
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
