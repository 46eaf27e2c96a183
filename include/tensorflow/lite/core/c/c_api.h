/* TensorFlow Lite's internal include path (tensorflow/lite/core/c/c_api.h), for programs that use it:
 * edgerun's C API is in edgerun/c_api.h. */
#include "edgerun/c_api.h"
