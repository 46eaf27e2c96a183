/* The C API from C, built against the public headers only (TFLite's include path): every function
 * of include/edgerun/c_api.h on conformance models, their error paths, and the ABI details
 * (enum values, struct layout) that programs built for TFLite rely on.
 *
 * Usage: c_api_test SHARED_DIR [CUSTOM_OP_MODEL]
 *   The tests on corpus models are skipped (with a message) when SHARED_DIR/conformance is
 *   absent. CUSTOM_OP_MODEL is the model the build writes from tests/c_api_custom_op_model.json
 *   (one custom op, EdgerunTestScale). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/c/common.h"

static int g_passed = 0;
static int g_failed = 0;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (cond) {                                                       \
      ++g_passed;                                                     \
    } else {                                                          \
      ++g_failed;                                                     \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                 \
  } while (0)

static char g_corpus[4096];

static const char* CasePath(const char* name, const char* file) {
  static char path[8192];
  snprintf(path, sizeof(path), "%s/%s/%s", g_corpus, name, file);
  return path;
}

static void* ReadFile(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void* data = malloc(n > 0 ? (size_t)n : 1);
  *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

/* Error reporter that keeps the last message and counts calls. */
typedef struct {
  int calls;
  char last[2048];
} Captured;

static void Capture(void* user_data, const char* format, va_list args) {
  Captured* captured = (Captured*)user_data;
  ++captured->calls;
  vsnprintf(captured->last, sizeof(captured->last), format, args);
}

static void TestAbi(void) {
  /* Values compiled into programs built for TFLite. */
  CHECK(kTfLiteOk == 0 && kTfLiteError == 1 && kTfLiteDelegateError == 2 && kTfLiteUnresolvedOps == 7 &&
        kTfLiteCancelled == 8);
  CHECK(kTfLiteNoType == 0 && kTfLiteFloat32 == 1 && kTfLiteInt32 == 2 && kTfLiteUInt8 == 3 && kTfLiteInt64 == 4 &&
        kTfLiteString == 5 && kTfLiteBool == 6 && kTfLiteInt16 == 7 && kTfLiteComplex64 == 8 && kTfLiteInt8 == 9 &&
        kTfLiteFloat16 == 10 && kTfLiteFloat64 == 11 && kTfLiteComplex128 == 12 && kTfLiteUInt64 == 13 &&
        kTfLiteResource == 14 && kTfLiteVariant == 15 && kTfLiteUInt32 == 16 && kTfLiteUInt16 == 17 &&
        kTfLiteInt4 == 18 && kTfLiteBFloat16 == 19 && kTfLiteInt2 == 20 && kTfLiteUInt4 == 21);
  CHECK(kTfLiteMmapRo == 1 && kTfLiteArenaRw == 2 && kTfLiteDynamic == 4);
  CHECK(kTfLiteAffineQuantization == 1);
  /* TfLiteTensor's layout on LP64 (TFLite's common.h). */
  if (sizeof(void*) == 8) {
    CHECK(offsetof(TfLiteTensor, data) == 8);
    CHECK(offsetof(TfLiteTensor, dims) == 16);
    CHECK(offsetof(TfLiteTensor, params) == 24);
    CHECK(offsetof(TfLiteTensor, allocation_type) == 32);
    CHECK(offsetof(TfLiteTensor, bytes) == 40);
    CHECK(offsetof(TfLiteTensor, name) == 56);
    CHECK(offsetof(TfLiteTensor, is_variable) == 77);
    CHECK(offsetof(TfLiteTensor, quantization) == 80);
    CHECK(offsetof(TfLiteTensor, dims_signature) == 104);
    CHECK(sizeof(TfLiteTensor) == 112);
  }
}

static void TestVersionsAndHelpers(void) {
  CHECK(TfLiteVersion() != NULL && strncmp(TfLiteVersion(), "2.", 2) == 0);
  CHECK(strstr(TfLiteVersion(), "edgerun") != NULL);
  CHECK(TfLiteExtensionApisVersion() != NULL);
  CHECK(TfLiteSchemaVersion() == 3);
  CHECK(strcmp(TfLiteTypeGetName(kTfLiteFloat32), "FLOAT32") == 0);
  CHECK(strcmp(TfLiteTypeGetName(kTfLiteInt8), "INT8") == 0);
  CHECK(strcmp(TfLiteTypeGetName((TfLiteType)99), "Unknown type") == 0);

  TfLiteIntArray* a = TfLiteIntArrayCreate(3);
  CHECK(a != NULL && a->size == 3);
  a->data[0] = 1;
  a->data[1] = 2;
  a->data[2] = 3;
  const int expected[] = {1, 2, 3};
  CHECK(TfLiteIntArrayEqualsArray(a, 3, expected) == 1);
  TfLiteIntArray* b = TfLiteIntArrayCopy(a);
  CHECK(TfLiteIntArrayEqual(a, b) == 1);
  b->data[2] = 4;
  CHECK(TfLiteIntArrayEqual(a, b) == 0);
  CHECK(TfLiteIntArrayGetSizeInBytes(3) == sizeof(int) * 4);
  TfLiteIntArrayFree(a);
  TfLiteIntArrayFree(b);
  CHECK(TfLiteFloatArrayGetSizeInBytes(2) == (int)(sizeof(int) + 2 * sizeof(float)));
  TfLiteFloatArray* f = TfLiteFloatArrayCreate(2);
  CHECK(f != NULL && f->size == 2);
  TfLiteFloatArrayFree(f);
}

static void TestModelErrors(void) {
  Captured captured = {0, ""};
  CHECK(TfLiteModelCreateFromFileWithErrorReporter("/nonexistent/model.tflite", Capture, &captured) == NULL);
  CHECK(captured.calls == 1 && strstr(captured.last, "/nonexistent/model.tflite") != NULL);

  const char garbage[] = "this is not a flatbuffer, just some text long enough";
  captured.calls = 0;
  CHECK(TfLiteModelCreateWithErrorReporter(garbage, sizeof(garbage), Capture, &captured) == NULL);
  CHECK(captured.calls == 1);
  CHECK(TfLiteModelCreateWithErrorReporter(NULL, 0, Capture, &captured) == NULL);

  /* The broken models of the corpus: a clean NULL (or a NULL interpreter), never a crash. */
  char path[8192];
  snprintf(path, sizeof(path), "%s/../conformance-invalid/truncated_50_vww_96_int8.tflite", g_corpus);
  captured.calls = 0;
  CHECK(TfLiteModelCreateFromFileWithErrorReporter(path, Capture, &captured) == NULL);
  CHECK(captured.calls == 1);

  snprintf(path, sizeof(path), "%s/../conformance-invalid/unresolved_custom_op.tflite", g_corpus);
  TfLiteModel* model = TfLiteModelCreateFromFile(path);
  if (model != NULL) {
    TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
    captured.calls = 0;
    TfLiteInterpreterOptionsSetErrorReporter(options, Capture, &captured);
    CHECK(TfLiteInterpreterCreate(model, options) == NULL);
    CHECK(captured.calls == 1 && strstr(captured.last, "not supported") != NULL);
    TfLiteInterpreterOptionsDelete(options);
    TfLiteModelDelete(model);
  }
  TfLiteModelDelete(NULL);
  TfLiteInterpreterDelete(NULL);
  TfLiteInterpreterOptionsDelete(NULL);
  TfLiteSignatureRunnerDelete(NULL);
}

/* tflite_add: one float input, one output; the whole life cycle and the error paths. */
static void TestFloatModel(void) {
  size_t model_size = 0;
  void* model_data = ReadFile(CasePath("tflite_add", "model.tflite"), &model_size);
  size_t input_size = 0, expected_size = 0;
  float* input = (float*)ReadFile(CasePath("tflite_add", "input_0.bin"), &input_size);
  float* expected = (float*)ReadFile(CasePath("tflite_add", "expected_0.bin"), &expected_size);
  CHECK(model_data != NULL && input != NULL && expected != NULL);
  if (model_data == NULL || input == NULL || expected == NULL) return;

  TfLiteModel* model = TfLiteModelCreate(model_data, model_size);
  CHECK(model != NULL);
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  Captured captured = {0, ""};
  TfLiteInterpreterOptionsSetNumThreads(options, 2);
  TfLiteInterpreterOptionsSetErrorReporter(options, Capture, &captured);
  int not_a_real_delegate = 0; /* delegates are accepted and never applied (nor dereferenced) */
  TfLiteInterpreterOptionsAddDelegate(options, (TfLiteOpaqueDelegate*)&not_a_real_delegate);
  CHECK(TfLiteInterpreterOptionsEnableCancellation(options, true) == kTfLiteOk);
  TfLiteInterpreterOptionsSetUseNNAPI(options, false);
  TfLiteInterpreterOptionsSetEnableDelegateFallback(options, false);
  TfLiteInterpreterOptions* copy = TfLiteInterpreterOptionsCopy(options);
  CHECK(copy != NULL);
  TfLiteInterpreterOptionsDelete(options);

  CHECK(TfLiteInterpreterCreate(NULL, copy) == NULL);
  CHECK(captured.calls == 1);
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, copy);
  CHECK(interpreter != NULL);
  TfLiteInterpreterOptionsDelete(copy);
  TfLiteModelDelete(model); /* the interpreter keeps what it needs */
  if (interpreter == NULL) return;

  CHECK(TfLiteInterpreterGetInputTensorCount(interpreter) == 1);
  CHECK(TfLiteInterpreterGetOutputTensorCount(interpreter) == 1);
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(interpreter, 0);
  CHECK(in != NULL);
  CHECK(TfLiteTensorType(in) == kTfLiteFloat32);
  CHECK(TfLiteTensorNumDims(in) == 4);
  CHECK(TfLiteTensorDim(in, 0) == 1 && TfLiteTensorDim(in, 1) == 8 && TfLiteTensorDim(in, 3) == 3);
  CHECK(TfLiteTensorDim(in, 4) == -1 && TfLiteTensorDim(in, -1) == -1);
  CHECK(TfLiteTensorByteSize(in) == 8 * 8 * 3 * sizeof(float));
  CHECK(strcmp(TfLiteTensorName(in), "input") == 0);
  TfLiteQuantizationParams q = TfLiteTensorQuantizationParams(in);
  CHECK(q.scale == 0.0f && q.zero_point == 0);
  CHECK(in->quantization.type == kTfLiteNoQuantization);
  /* Fields, as TFLite programs read them. */
  CHECK(in->type == kTfLiteFloat32 && in->dims->size == 4 && in->dims->data[2] == 8 && in->bytes == 768);

  /* No memory before AllocateTensors: reported, not a crash. */
  CHECK(TfLiteTensorData(in) == NULL);
  captured.calls = 0;
  CHECK(TfLiteTensorCopyFromBuffer(in, input, input_size) == kTfLiteError);
  CHECK(captured.calls == 1 && strstr(captured.last, "AllocateTensors") != NULL);
  CHECK(TfLiteInterpreterInvoke(interpreter) == kTfLiteError);

  CHECK(TfLiteInterpreterGetInputTensor(interpreter, 1) == NULL);
  CHECK(TfLiteInterpreterGetInputTensor(interpreter, -1) == NULL);
  CHECK(TfLiteInterpreterGetOutputTensor(interpreter, 1) == NULL);
  CHECK(TfLiteInterpreterGetTensor(interpreter, 100000) == NULL);

  CHECK(TfLiteInterpreterAllocateTensors(interpreter) == kTfLiteOk);
  in = TfLiteInterpreterGetInputTensor(interpreter, 0);
  CHECK(TfLiteTensorData(in) != NULL && in->data.raw == TfLiteTensorData(in));
  captured.calls = 0;
  CHECK(TfLiteTensorCopyFromBuffer(in, input, input_size - 4) == kTfLiteError);
  CHECK(captured.calls == 1);
  CHECK(TfLiteTensorCopyFromBuffer(in, input, input_size) == kTfLiteOk);
  CHECK(TfLiteInterpreterInvoke(interpreter) == kTfLiteOk);

  const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(interpreter, 0);
  CHECK(out != NULL && TfLiteTensorByteSize(out) == expected_size);
  float result[192];
  CHECK(TfLiteTensorCopyToBuffer(out, result, sizeof(result) - 4) == kTfLiteError);
  CHECK(TfLiteTensorCopyToBuffer(out, result, sizeof(result)) == kTfLiteOk);
  int same = 1;
  for (int i = 0; i < 192; ++i) same &= fabsf(result[i] - expected[i]) <= 1e-5f + 1e-5f * fabsf(expected[i]);
  CHECK(same);
  CHECK(memcmp(out->data.f, result, sizeof(result)) == 0);

  /* Indices and TfLiteInterpreterGetTensor give the same tensors. */
  const int* inputs = TfLiteInterpreterInputTensorIndices(interpreter);
  const int* outputs = TfLiteInterpreterOutputTensorIndices(interpreter);
  CHECK(inputs != NULL && outputs != NULL);
  CHECK(TfLiteInterpreterGetInputTensorIndex(interpreter, 0) == inputs[0]);
  CHECK(TfLiteInterpreterGetOutputTensorIndex(interpreter, 0) == outputs[0]);
  CHECK(TfLiteInterpreterGetInputTensorIndex(interpreter, 3) == -1);
  CHECK(TfLiteInterpreterGetOutputTensorIndex(interpreter, 3) == -1);
  CHECK(TfLiteInterpreterGetTensor(interpreter, inputs[0]) == in);
  CHECK(TfLiteInterpreterGetTensor(interpreter, outputs[0]) == out);

  /* Non-strict resize (TFLite's default): a batch of 2 on a model declared with batch 1. */
  const int batch2[] = {2, 8, 8, 3};
  CHECK(TfLiteInterpreterResizeInputTensor(interpreter, 0, batch2, 4) == kTfLiteOk);
  CHECK(TfLiteTensorDim(in, 0) == 2 && TfLiteTensorByteSize(in) == 2 * 768);
  CHECK(TfLiteTensorData(in) == NULL); /* stale memory is not handed out */
  CHECK(TfLiteInterpreterInvoke(interpreter) == kTfLiteError);
  CHECK(TfLiteInterpreterAllocateTensors(interpreter) == kTfLiteOk);
  float twice[384];
  memcpy(twice, input, 768);
  memcpy(twice + 192, input, 768);
  CHECK(TfLiteTensorCopyFromBuffer(in, twice, sizeof(twice)) == kTfLiteOk);
  CHECK(TfLiteInterpreterInvoke(interpreter) == kTfLiteOk);
  out = TfLiteInterpreterGetOutputTensor(interpreter, 0);
  CHECK(TfLiteTensorDim(out, 0) == 2);
  float result2[384];
  CHECK(TfLiteTensorCopyToBuffer(out, result2, sizeof(result2)) == kTfLiteOk);
  CHECK(memcmp(result2, result, sizeof(result)) == 0 && memcmp(result2 + 192, result, sizeof(result)) == 0);

  /* Bad resizes: reported, the interpreter stays usable. */
  const int negative[] = {1, -8, 8, 3};
  captured.calls = 0;
  CHECK(TfLiteInterpreterResizeInputTensor(interpreter, 0, negative, 4) == kTfLiteError);
  CHECK(TfLiteInterpreterResizeInputTensor(interpreter, 5, batch2, 4) == kTfLiteError);
  CHECK(TfLiteInterpreterResizeInputTensor(interpreter, 0, NULL, 4) == kTfLiteError);
  CHECK(captured.calls == 3);
  /* Strict: the file's shape signature (if any) fixes the batch, so only the same shape passes. */
  const int batch1[] = {1, 8, 8, 3};
  CHECK(TfLiteInterpreterResizeInputTensorStrict(interpreter, 0, batch1, 4) == kTfLiteOk);
  CHECK(TfLiteInterpreterAllocateTensors(interpreter) == kTfLiteOk);
  CHECK(TfLiteTensorCopyFromBuffer(in, input, input_size) == kTfLiteOk);
  CHECK(TfLiteInterpreterInvoke(interpreter) == kTfLiteOk);

  CHECK(TfLiteInterpreterCancel(interpreter) == kTfLiteError);
  CHECK(TfLiteInterpreterGetSignatureCount(interpreter) >= 0);
  CHECK(TfLiteInterpreterGetVariableTensorCount(interpreter) == 0);
  CHECK(TfLiteInterpreterGetVariableTensor(interpreter, 0) == NULL);
  CHECK(TfLiteInterpreterResetVariableTensors(interpreter) == kTfLiteOk);

  /* NULL arguments. */
  CHECK(TfLiteTensorType(NULL) == kTfLiteNoType && TfLiteTensorNumDims(NULL) == -1 && TfLiteTensorData(NULL) == NULL);
  CHECK(TfLiteTensorByteSize(NULL) == 0 && TfLiteTensorName(NULL) == NULL);
  CHECK(TfLiteInterpreterGetInputTensorCount(NULL) == 0 && TfLiteInterpreterAllocateTensors(NULL) == kTfLiteError);

  TfLiteInterpreterDelete(interpreter);
  free(model_data);
  free(input);
  free(expected);
}

/* A dynamic batch (shape signature [-1, 128, 4]): strict resize within the signature. */
static void TestDynamicModel(void) {
  TfLiteModel* model = TfLiteModelCreateFromFile(CasePath("litert_simple_add_dynamic_shape", "model.tflite"));
  CHECK(model != NULL);
  if (model == NULL) return;
  Captured captured = {0, ""};
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(options, Capture, &captured);
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
  CHECK(interpreter != NULL);
  if (interpreter == NULL) return;
  TfLiteTensor* in0 = TfLiteInterpreterGetInputTensor(interpreter, 0);
  CHECK(in0->dims_signature != NULL && in0->dims_signature->size == TfLiteTensorNumDims(in0));
  CHECK(in0->dims_signature->data[0] == -1 && in0->dims_signature->data[1] == 128);
  const int shape[] = {2, 128, 4};
  CHECK(TfLiteInterpreterResizeInputTensorStrict(interpreter, 0, shape, 3) == kTfLiteOk);
  CHECK(TfLiteInterpreterResizeInputTensor(interpreter, 1, shape, 3) == kTfLiteOk);
  const int wrong[] = {2, 5, 4};
  CHECK(TfLiteInterpreterResizeInputTensorStrict(interpreter, 0, wrong, 3) == kTfLiteError);
  CHECK(captured.calls == 1 && strstr(captured.last, "cannot take shape") != NULL);
  CHECK(TfLiteInterpreterAllocateTensors(interpreter) == kTfLiteOk);
  static float a[1024], b[1024], sum[1024];
  for (int i = 0; i < 1024; ++i) {
    a[i] = (float)i;
    b[i] = 0.5f * (float)i;
  }
  CHECK(TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(interpreter, 0), a, sizeof(a)) == kTfLiteOk);
  CHECK(TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(interpreter, 1), b, sizeof(b)) == kTfLiteOk);
  CHECK(TfLiteInterpreterInvoke(interpreter) == kTfLiteOk);
  const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(interpreter, 0);
  CHECK(TfLiteTensorNumDims(out) == 3 && TfLiteTensorDim(out, 0) == 2 && TfLiteTensorDim(out, 1) == 128);
  CHECK(TfLiteTensorCopyToBuffer(out, sum, sizeof(sum)) == kTfLiteOk);
  int ok = 1;
  for (int i = 0; i < 1024; ++i) ok &= sum[i] == 1.5f * (float)i;
  CHECK(ok);
  TfLiteInterpreterDelete(interpreter);
  TfLiteInterpreterOptionsDelete(options);
  TfLiteModelDelete(model);
}

/* Signatures: keys, runners, names, resize / allocate / invoke through a runner. */
static void TestSignatures(void) {
  TfLiteModel* model = TfLiteModelCreateFromFile(CasePath("tflite_multi_signatures", "model.tflite"));
  CHECK(model != NULL);
  if (model == NULL) return;
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, NULL);
  TfLiteModelDelete(model);
  CHECK(interpreter != NULL);
  if (interpreter == NULL) return;
  CHECK(TfLiteInterpreterGetSignatureCount(interpreter) == 2);
  const char* sub_key = NULL;
  for (int i = 0; i < TfLiteInterpreterGetSignatureCount(interpreter); ++i) {
    const char* key = TfLiteInterpreterGetSignatureKey(interpreter, i);
    CHECK(key != NULL);
    if (key != NULL && strcmp(key, "sub") == 0) sub_key = key;
  }
  CHECK(sub_key != NULL);
  CHECK(TfLiteInterpreterGetSignatureKey(interpreter, 2) == NULL);
  CHECK(TfLiteInterpreterGetSignatureKey(interpreter, -1) == NULL);
  CHECK(TfLiteInterpreterGetSignatureRunner(interpreter, "no such key") == NULL);
  if (sub_key == NULL) return;

  TfLiteSignatureRunner* runner = TfLiteInterpreterGetSignatureRunner(interpreter, sub_key);
  CHECK(runner != NULL);
  if (runner == NULL) return;
  CHECK(TfLiteSignatureRunnerGetInputCount(runner) == 1);
  CHECK(TfLiteSignatureRunnerGetOutputCount(runner) == 1);
  const char* input_name = TfLiteSignatureRunnerGetInputName(runner, 0);
  const char* output_name = TfLiteSignatureRunnerGetOutputName(runner, 0);
  CHECK(input_name != NULL && output_name != NULL);
  CHECK(TfLiteSignatureRunnerGetInputName(runner, 1) == NULL);
  CHECK(TfLiteSignatureRunnerGetOutputName(runner, 1) == NULL);
  CHECK(TfLiteSignatureRunnerGetInputTensor(runner, "no such input") == NULL);
  CHECK(TfLiteSignatureRunnerGetOutputTensor(runner, "no such output") == NULL);

  /* Strict: [3] only where the signature has a dynamic dimension; [1] is always the model's. */
  const int shape[] = {3};
  const int one[] = {1};
  if (TfLiteSignatureRunnerResizeInputTensor(runner, input_name, shape, 1) != kTfLiteOk) {
    CHECK(TfLiteSignatureRunnerResizeInputTensor(runner, input_name, one, 1) == kTfLiteOk);
  }
  CHECK(TfLiteSignatureRunnerResizeInputTensor(runner, "no such input", shape, 1) == kTfLiteError);
  CHECK(TfLiteSignatureRunnerAllocateTensors(runner) == kTfLiteOk);
  TfLiteTensor* in = TfLiteSignatureRunnerGetInputTensor(runner, input_name);
  CHECK(in != NULL && TfLiteTensorType(in) == kTfLiteFloat32);
  const int n = TfLiteTensorDim(in, 0);
  float x[3] = {5.0f, 7.0f, -1.0f};
  CHECK(n >= 1 && n <= 3);
  CHECK(TfLiteTensorCopyFromBuffer(in, x, sizeof(float) * (size_t)n) == kTfLiteOk);
  CHECK(TfLiteSignatureRunnerInvoke(runner) == kTfLiteOk);
  const TfLiteTensor* out = TfLiteSignatureRunnerGetOutputTensor(runner, output_name);
  CHECK(out != NULL && TfLiteTensorDim(out, 0) == n);
  /* The "sub" signature computes x - 3 (see the corpus case tflite_multi_signatures__sig_sub). */
  float y[3];
  CHECK(TfLiteTensorCopyToBuffer(out, y, sizeof(float) * (size_t)n) == kTfLiteOk);
  int ok = 1;
  for (int i = 0; i < n; ++i) ok &= y[i] == x[i] - 3.0f;
  CHECK(ok);
  CHECK(TfLiteSignatureRunnerCancel(runner) == kTfLiteError);
  TfLiteSignatureRunnerDelete(runner);
  TfLiteInterpreterDelete(interpreter);
}

/* The quantized MobileNet: quantization parameters, uint8 data, the expected class. */
static void TestQuantizedModel(void) {
  const char* name = "coral_mobilenet_v2_1.0_224_quant";
  TfLiteModel* model = TfLiteModelCreateFromFile(CasePath(name, "model.tflite"));
  CHECK(model != NULL);
  if (model == NULL) return;
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, NULL);
  CHECK(interpreter != NULL);
  if (interpreter == NULL) return;
  TfLiteTensor* in = TfLiteInterpreterGetInputTensor(interpreter, 0);
  CHECK(TfLiteTensorType(in) == kTfLiteUInt8);
  TfLiteQuantizationParams q = TfLiteTensorQuantizationParams(in);
  CHECK(q.scale == 0.0078125f && q.zero_point == 128);
  CHECK(in->quantization.type == kTfLiteAffineQuantization);
  const TfLiteAffineQuantization* affine = (const TfLiteAffineQuantization*)in->quantization.params;
  CHECK(affine->scale->size == 1 && affine->scale->data[0] == 0.0078125f && affine->zero_point->data[0] == 128);
  CHECK(TfLiteInterpreterAllocateTensors(interpreter) == kTfLiteOk);
  size_t size = 0, expected_size = 0;
  unsigned char* image = (unsigned char*)ReadFile(CasePath(name, "input_0.bin"), &size);
  unsigned char* expected = (unsigned char*)ReadFile(CasePath(name, "expected_0.bin"), &expected_size);
  CHECK(image != NULL && expected != NULL);
  if (image != NULL && expected != NULL) {
    CHECK(TfLiteTensorCopyFromBuffer(in, image, size) == kTfLiteOk);
    CHECK(TfLiteInterpreterInvoke(interpreter) == kTfLiteOk);
    const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(interpreter, 0);
    CHECK(TfLiteTensorByteSize(out) == expected_size && expected_size == 1001);
    const unsigned char* scores = (const unsigned char*)TfLiteTensorData(out);
    int max_diff = 0, best = 0, expected_best = 0;
    for (size_t i = 0; i < expected_size; ++i) {
      const int diff = abs((int)scores[i] - (int)expected[i]);
      if (diff > max_diff) max_diff = diff;
      if (scores[i] > scores[best]) best = (int)i;
      if (expected[i] > expected[expected_best]) expected_best = (int)i;
    }
    CHECK(max_diff <= 2); /* the case's tolerance */
    CHECK(best == expected_best);
  }
  free(image);
  free(expected);
  TfLiteInterpreterDelete(interpreter);
  TfLiteModelDelete(model);
}

/* A model with variable tensors (LSTM state). */
static void TestVariables(void) {
  TfLiteModel* model = TfLiteModelCreateFromFile(CasePath("quant_lstm_quantized", "model.tflite"));
  CHECK(model != NULL);
  if (model == NULL) return;
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, NULL);
  CHECK(interpreter != NULL);
  if (interpreter != NULL) {
    const int count = TfLiteInterpreterGetVariableTensorCount(interpreter);
    CHECK(count > 0);
    CHECK(TfLiteInterpreterAllocateTensors(interpreter) == kTfLiteOk);
    TfLiteTensor* state = TfLiteInterpreterGetVariableTensor(interpreter, 0);
    CHECK(state != NULL && state->is_variable);
    CHECK(TfLiteInterpreterGetVariableTensor(interpreter, count) == NULL);
    TfLiteTensor* input = TfLiteInterpreterGetInputTensor(interpreter, 0);
    memset(TfLiteTensorData(input), 0, TfLiteTensorByteSize(input));
    CHECK(TfLiteInterpreterInvoke(interpreter) == kTfLiteOk);
    CHECK(TfLiteInterpreterResetVariableTensors(interpreter) == kTfLiteOk);
    TfLiteInterpreterDelete(interpreter);
  }
  TfLiteModelDelete(model);
}

/* ---- custom ops: kernels written against TFLite's TfLiteRegistration */

typedef struct {
  int init, free, prepare, invoke;
  float scale_seen;
} KernelCalls;
static KernelCalls g_calls;

typedef struct {
  float scale;
} ScaleData;

static void* ScaleInit(TfLiteContext* context, const char* buffer, size_t length) {
  ++g_calls.init;
  ScaleData* data = (ScaleData*)malloc(sizeof(ScaleData));
  data->scale = length > 0 ? (float)(unsigned char)buffer[0] : 1.0f;
  return data;
}

static void ScaleFree(TfLiteContext* context, void* buffer) {
  ++g_calls.free;
  free(buffer);
}

static TfLiteStatus ScalePrepare(TfLiteContext* context, TfLiteNode* node) {
  ++g_calls.prepare;
  TF_LITE_ENSURE_EQ(context, node->inputs->size, 1);
  TF_LITE_ENSURE_EQ(context, node->outputs->size, 1);
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* output = context->GetTensor(context, node->outputs->data[0]);
  TF_LITE_ENSURE_TYPES_EQ(context, input->type, kTfLiteFloat32);
  TF_LITE_ENSURE(context, node->custom_initial_data_size == 1);
  return context->ResizeTensor(context, output, TfLiteIntArrayCopy(input->dims));
}

static TfLiteStatus ScaleInvoke(TfLiteContext* context, TfLiteNode* node) {
  ++g_calls.invoke;
  const ScaleData* data = (const ScaleData*)node->user_data;
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  TF_LITE_ENSURE(context, input->data.f != NULL && output->data.f != NULL);
  g_calls.scale_seen = data->scale;
  float* scratch = NULL;
  TF_LITE_ENSURE_STATUS(context->AllocateBufferForEval(context, input->bytes, (void**)&scratch));
  const int n = (int)(input->bytes / sizeof(float));
  for (int i = 0; i < n; ++i) scratch[i] = input->data.f[i] * data->scale;
  memcpy(output->data.f, scratch, input->bytes);
  return kTfLiteOk;
}

/* Sizes its output only when it runs (TFLite's SetTensorToDynamic + ResizeTensor in invoke). */
static TfLiteStatus DynamicPrepare(TfLiteContext* context, TfLiteNode* node) {
  context->tensors[node->outputs->data[0]].allocation_type = kTfLiteDynamic;
  return kTfLiteOk;
}

static TfLiteStatus DynamicInvoke(TfLiteContext* context, TfLiteNode* node) {
  const TfLiteTensor* input = &context->tensors[node->inputs->data[0]];
  TfLiteTensor* output = &context->tensors[node->outputs->data[0]];
  const int doubled[1] = {2 * input->dims->data[0]};
  TF_LITE_ENSURE_STATUS(context->ResizeTensorExplicit(context, output, 1, doubled));
  TF_LITE_ENSURE(context, output->data.f != NULL && output->bytes == 2 * input->bytes);
  for (int i = 0; i < doubled[0]; ++i) output->data.f[i] = input->data.f[i % input->dims->data[0]];
  return kTfLiteOk;
}

static TfLiteStatus FailingPrepare(TfLiteContext* context, TfLiteNode* node) {
  TF_LITE_ENSURE_MSG(context, node->inputs->size == 7, "edgerun test kernel refuses %d inputs", node->inputs->size);
  return kTfLiteOk;
}

static TfLiteInterpreter* WithKernel(TfLiteModel* model, const TfLiteRegistration* registration, Captured* captured) {
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(options, Capture, captured);
  TfLiteInterpreterOptionsAddCustomOp(options, "EdgerunTestScale", registration, 1, 1);
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
  TfLiteInterpreterOptionsDelete(options); /* the interpreter keeps the kernel */
  return interpreter;
}

static void TestCustomOps(const char* model_path) {
  TfLiteModel* model = TfLiteModelCreateFromFile(model_path);
  CHECK(model != NULL);
  if (model == NULL) return;
  Captured captured = {0, ""};
  /* Without a kernel the op is unresolved, and the message says how to register one. */
  TfLiteInterpreterOptions* plain = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(plain, Capture, &captured);
  CHECK(TfLiteInterpreterCreate(model, plain) == NULL);
  CHECK(strstr(captured.last, "EdgerunTestScale") != NULL);
  TfLiteInterpreterOptionsDelete(plain);

  TfLiteRegistration scale = {.init = ScaleInit, .free = ScaleFree, .prepare = ScalePrepare, .invoke = ScaleInvoke};
  memset(&g_calls, 0, sizeof(g_calls));
  TfLiteInterpreter* interpreter = WithKernel(model, &scale, &captured);
  CHECK(interpreter != NULL);
  if (interpreter != NULL) {
    CHECK(g_calls.init == 1);
    CHECK(TfLiteInterpreterAllocateTensors(interpreter) == kTfLiteOk);
    CHECK(g_calls.prepare == 1);
    const float x[4] = {1.0f, -2.0f, 0.5f, 8.0f};
    float y[4] = {0};
    CHECK(TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(interpreter, 0), x, sizeof(x)) == kTfLiteOk);
    CHECK(TfLiteInterpreterInvoke(interpreter) == kTfLiteOk);
    CHECK(g_calls.invoke == 1 && g_calls.scale_seen == 3.0f); /* from the op's custom_options */
    CHECK(TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(interpreter, 0), y, sizeof(y)) == kTfLiteOk);
    CHECK(y[0] == 3.0f && y[1] == -6.0f && y[2] == 1.5f && y[3] == 24.0f);
    /* Resizing the input reaches the kernel's prepare again. */
    const int five[1] = {5};
    CHECK(TfLiteInterpreterResizeInputTensor(interpreter, 0, five, 1) == kTfLiteOk);
    CHECK(TfLiteInterpreterAllocateTensors(interpreter) == kTfLiteOk);
    CHECK(g_calls.prepare == 2 && TfLiteTensorDim(TfLiteInterpreterGetOutputTensor(interpreter, 0), 0) == 5);
    TfLiteInterpreterDelete(interpreter);
    CHECK(g_calls.free == 1);
  }

  TfLiteRegistration dynamic = {.prepare = DynamicPrepare, .invoke = DynamicInvoke};
  interpreter = WithKernel(model, &dynamic, &captured);
  CHECK(interpreter != NULL);
  if (interpreter != NULL) {
    CHECK(TfLiteInterpreterAllocateTensors(interpreter) == kTfLiteOk);
    const float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    float y[8] = {0};
    CHECK(TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(interpreter, 0), x, sizeof(x)) == kTfLiteOk);
    CHECK(TfLiteInterpreterInvoke(interpreter) == kTfLiteOk);
    const TfLiteTensor* out = TfLiteInterpreterGetOutputTensor(interpreter, 0);
    CHECK(TfLiteTensorDim(out, 0) == 8 && out->allocation_type == kTfLiteDynamic);
    CHECK(TfLiteTensorCopyToBuffer(out, y, sizeof(y)) == kTfLiteOk);
    CHECK(y[0] == 1.0f && y[3] == 4.0f && y[4] == 1.0f && y[7] == 4.0f);
    TfLiteInterpreterDelete(interpreter);
  }

  TfLiteRegistration failing = {.prepare = FailingPrepare, .invoke = ScaleInvoke};
  interpreter = WithKernel(model, &failing, &captured);
  CHECK(interpreter != NULL);
  if (interpreter != NULL) {
    captured.calls = 0;
    CHECK(TfLiteInterpreterAllocateTensors(interpreter) == kTfLiteError);
    CHECK(captured.calls == 1 && strstr(captured.last, "edgerun test kernel refuses 1 inputs") != NULL);
    CHECK(strstr(captured.last, "EdgerunTestScale") != NULL); /* where: the op */
    TfLiteInterpreterDelete(interpreter);
  }

  /* The context's delegate-only functions answer with an error, not a crash. */
  TfLiteDelegate delegate = TfLiteDelegateCreate();
  CHECK(delegate.Prepare == NULL && delegate.flags == kTfLiteDelegateFlagsNone);
  TfLiteModelDelete(model);
}

int main(int argc, char** argv) {
  const char* shared = argc > 1 ? argv[1] : "../shared";
  snprintf(g_corpus, sizeof(g_corpus), "%s/conformance", shared);
  TestAbi();
  TestVersionsAndHelpers();
  if (argc > 2) TestCustomOps(argv[2]);
  size_t size = 0;
  void* probe = ReadFile(CasePath("tflite_add", "model.tflite"), &size);
  if (probe == NULL) {
    printf("SKIP the tests on corpus models: no conformance corpus at %s\n", g_corpus);
  } else {
    free(probe);
    TestModelErrors();
    TestFloatModel();
    TestDynamicModel();
    TestSignatures();
    TestQuantizedModel();
    TestVariables();
  }
  printf("c_api: %d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
