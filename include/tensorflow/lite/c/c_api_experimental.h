/* TensorFlow Lite's include path for edgerun's C API: programs written for TFLite's
 * tensorflow/lite/c/c_api_experimental.h compile unchanged with -I include. Everything is in edgerun/c_api.h. */
#include "edgerun/c_api.h"
