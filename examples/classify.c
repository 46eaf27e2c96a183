/* Image classification with TensorFlow Lite's C API, running on edgerun.
 *
 * Written against TFLite's published C API only: the same source builds against Google's
 * libtensorflowlite_c.so. Build it with edgerun's (CMake target `classify`), or by hand:
 *   cc -I include examples/classify.c -L build -ltensorflowlite_c -Wl,-rpath,build -o classify
 *
 * Usage: classify MODEL IMAGE [LABELS]
 *   MODEL   a classifier with one image input [1, height, width, 3] (uint8, int8 or float32)
 *   IMAGE   a binary PPM (P6) of exactly width x height, or raw RGB bytes (height*width*3)
 *   LABELS  optional text file, one label per line (line K names class K)
 * Prints the five best classes: rank, class index, score (dequantized), and the label if given.
 * Example: build/examples/classify ../shared/conformance/coral_mobilenet_v2_1.0_224_quant/model.tflite \
 *            ../shared/conformance/coral_mobilenet_v2_1.0_224_quant/input_0.bin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/lite/c/c_api.h"

/* Reads the whole file; NULL on failure. */
static unsigned char* ReadAll(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return NULL;
  }
  long n = ftell(f);
  rewind(f);
  unsigned char* data = n >= 0 ? (unsigned char*)malloc((size_t)n + 1) : NULL;
  if (data != NULL) *size = fread(data, 1, (size_t)n, f);
  fclose(f);
  return data;
}

/* The RGB pixels of a P6 PPM (maxval 255) or of a raw file; NULL with a message on mismatch. */
static const unsigned char* Pixels(const unsigned char* file, size_t size, int width, int height) {
  const size_t expected = (size_t)width * (size_t)height * 3;
  if (size >= 2 && file[0] == 'P' && file[1] == '6') {
    int values[3], count = 0;
    size_t i = 2;
    while (count < 3 && i < size) {
      if (file[i] == '#') {
        while (i < size && file[i] != '\n') ++i;
      } else if (file[i] >= '0' && file[i] <= '9') {
        int v = 0;
        while (i < size && file[i] >= '0' && file[i] <= '9') v = v * 10 + (file[i++] - '0');
        values[count++] = v;
        continue;
      }
      ++i;
    }
    ++i; /* exactly one whitespace byte separates the header from the pixels */
    if (count != 3 || values[2] != 255) {
      fprintf(stderr, "classify: unsupported PPM (need 8-bit P6)\n");
      return NULL;
    }
    if (values[0] != width || values[1] != height || size - i < expected) {
      fprintf(stderr, "classify: the image is %dx%d, the model takes %dx%d\n", values[0], values[1], width, height);
      return NULL;
    }
    return file + i;
  }
  if (size != expected) {
    fprintf(stderr, "classify: a raw image must have %zu bytes (%dx%dx3), this one has %zu\n", expected, width,
            height, size);
    return NULL;
  }
  return file;
}

static char** ReadLabels(const char* path, int* count) {
  size_t size = 0;
  unsigned char* text = ReadAll(path, &size);
  *count = 0;
  if (text == NULL) return NULL;
  text[size] = '\0';
  char** labels = (char**)calloc(size + 1, sizeof(char*));
  char* line = (char*)text;
  while (labels != NULL && *line != '\0') {
    char* end = strchr(line, '\n');
    if (end != NULL) *end = '\0';
    size_t n = strlen(line);
    if (n > 0 && line[n - 1] == '\r') line[n - 1] = '\0';
    labels[(*count)++] = line;
    if (end == NULL) break;
    line = end + 1;
  }
  if (*count == 0) free(text);
  return labels;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL IMAGE [LABELS]\n", argv[0]);
    return 2;
  }
  TfLiteModel* model = TfLiteModelCreateFromFile(argv[1]);
  if (model == NULL) return 1; /* the reason is on stderr */
  TfLiteInterpreterOptions* options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(options, 2);
  TfLiteInterpreter* interpreter = TfLiteInterpreterCreate(model, options);
  TfLiteInterpreterOptionsDelete(options);
  if (interpreter == NULL || TfLiteInterpreterAllocateTensors(interpreter) != kTfLiteOk) return 1;

  TfLiteTensor* input = TfLiteInterpreterGetInputTensor(interpreter, 0);
  if (TfLiteTensorNumDims(input) != 4 || TfLiteTensorDim(input, 3) != 3) {
    fprintf(stderr, "classify: the model's input is not one [1, height, width, 3] image\n");
    return 1;
  }
  const int height = TfLiteTensorDim(input, 1), width = TfLiteTensorDim(input, 2);
  size_t file_size = 0;
  unsigned char* file = ReadAll(argv[2], &file_size);
  if (file == NULL) {
    fprintf(stderr, "classify: cannot read %s\n", argv[2]);
    return 1;
  }
  const unsigned char* rgb = Pixels(file, file_size, width, height);
  if (rgb == NULL) return 1;

  /* Pixels in [0, 255] become what the input expects: uint8 as is, int8 shifted, float32 in
   * [-1, 1] (the MobileNet convention) unless the tensor's quantization says otherwise. */
  const size_t count = (size_t)width * (size_t)height * 3;
  const TfLiteType type = TfLiteTensorType(input);
  void* data = TfLiteTensorData(input);
  for (size_t i = 0; i < count; ++i) {
    if (type == kTfLiteUInt8) {
      ((unsigned char*)data)[i] = rgb[i];
    } else if (type == kTfLiteInt8) {
      ((signed char*)data)[i] = (signed char)((int)rgb[i] - 128);
    } else if (type == kTfLiteFloat32) {
      ((float*)data)[i] = ((float)rgb[i] - 127.5f) / 127.5f;
    } else {
      fprintf(stderr, "classify: input type %s is not an image type\n", TfLiteTypeGetName(type));
      return 1;
    }
  }
  if (TfLiteInterpreterInvoke(interpreter) != kTfLiteOk) return 1;

  const TfLiteTensor* output = TfLiteInterpreterGetOutputTensor(interpreter, 0);
  const TfLiteType out_type = TfLiteTensorType(output);
  const TfLiteQuantizationParams q = TfLiteTensorQuantizationParams(output);
  const int classes = TfLiteTensorDim(output, TfLiteTensorNumDims(output) - 1);
  float* scores = (float*)malloc(sizeof(float) * (size_t)classes);
  const void* raw = TfLiteTensorData(output);
  for (int c = 0; c < classes; ++c) {
    if (out_type == kTfLiteFloat32) {
      scores[c] = ((const float*)raw)[c];
    } else if (out_type == kTfLiteUInt8) {
      scores[c] = q.scale * (float)((int)((const unsigned char*)raw)[c] - q.zero_point);
    } else if (out_type == kTfLiteInt8) {
      scores[c] = q.scale * (float)((int)((const signed char*)raw)[c] - q.zero_point);
    } else {
      fprintf(stderr, "classify: output type %s is not a score type\n", TfLiteTypeGetName(out_type));
      return 1;
    }
  }

  int num_labels = 0;
  char** labels = argc > 3 ? ReadLabels(argv[3], &num_labels) : NULL;
  if (argc > 3 && labels == NULL) fprintf(stderr, "classify: cannot read labels %s\n", argv[3]);
  for (int rank = 1; rank <= 5 && rank <= classes; ++rank) {
    int best = -1;
    for (int c = 0; c < classes; ++c) {
      if (scores[c] >= -1e30f && (best < 0 || scores[c] > scores[best])) best = c;
    }
    if (best < 0) break;
    printf("%d: class %d  score %.6f", rank, best, scores[best]);
    if (best < num_labels) printf("  %s", labels[best]);
    printf("\n");
    scores[best] = -2e30f; /* taken */
  }
  free(scores);
  free(file);
  if (labels != NULL) {
    free(labels[0]);
    free(labels);
  }
  TfLiteInterpreterDelete(interpreter);
  TfLiteModelDelete(model);
  return 0;
}
