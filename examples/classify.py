#!/usr/bin/env python3
"""Image classification with edgerun's Python API (the tflite_runtime API).

Usage: PYTHONPATH=build/python python3 examples/classify.py MODEL IMAGE [LABELS]
  MODEL   a classifier with one image input [1, height, width, 3] (uint8, int8 or float32)
  IMAGE   a binary PPM (P6) or raw RGB bytes of the input's size; any format Pillow reads when
          Pillow is installed (resized to the input)
  LABELS  optional text file, one label per line (line K names class K)
Prints the five best classes: rank, class index, score (dequantized), and the label if given.

Example:
  PYTHONPATH=build/python python3 examples/classify.py \
      ../shared/conformance/coral_mobilenet_v2_1.0_224_quant/model.tflite \
      ../shared/conformance/coral_mobilenet_v2_1.0_224_quant/input_0.bin
"""
import sys

import numpy as np

try:
    from edgerun import Interpreter
except ImportError:  # the same script runs on Google's runtime
    from tflite_runtime.interpreter import Interpreter


def read_ppm(data):
    """The pixels of an 8-bit binary PPM as (height, width, 3) uint8, or None if not a PPM."""
    if not data.startswith(b"P6"):
        return None
    fields, i = [], 2
    while len(fields) < 3:
        while data[i:i + 1].isspace():
            i += 1
        if data[i:i + 1] == b"#":
            i = data.index(b"\n", i) + 1
            continue
        start = i
        while data[i:i + 1].isdigit():
            i += 1
        fields.append(int(data[start:i]))
    width, height, maxval = fields
    if maxval != 255:
        raise ValueError("only 8-bit PPM images are supported")
    pixels = np.frombuffer(data, dtype=np.uint8, count=width * height * 3, offset=i + 1)
    return pixels.reshape(height, width, 3)


def load_image(path, height, width):
    with open(path, "rb") as f:
        data = f.read()
    image = read_ppm(data)
    if image is None and len(data) == height * width * 3:
        image = np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)
    if image is None:
        try:
            from PIL import Image  # optional
        except ImportError:
            sys.exit("classify.py: {} is neither a PPM nor raw RGB of {}x{}x3 bytes (and Pillow is "
                     "not installed)".format(path, height, width))
        image = np.asarray(Image.open(path).convert("RGB").resize((width, height)))
    if image.shape != (height, width, 3):
        sys.exit("classify.py: the image is {}x{}, the model takes {}x{}".format(
            image.shape[1], image.shape[0], width, height))
    return image


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: classify.py MODEL IMAGE [LABELS]")
    interpreter = Interpreter(model_path=argv[1], num_threads=2)
    interpreter.allocate_tensors()
    input_details = interpreter.get_input_details()[0]
    output_details = interpreter.get_output_details()[0]
    _, height, width, _ = input_details["shape"]
    image = load_image(argv[2], height, width)

    dtype = input_details["dtype"]
    if dtype == np.uint8:
        data = image
    elif dtype == np.int8:
        data = (image.astype(np.int16) - 128).astype(np.int8)
    else:
        data = (image.astype(np.float32) - 127.5) / 127.5  # MobileNet's [-1, 1]
    interpreter.set_tensor(input_details["index"], np.expand_dims(data, 0).astype(dtype))
    interpreter.invoke()

    scores = np.squeeze(interpreter.get_tensor(output_details["index"]))
    scale, zero_point = output_details["quantization"]
    if scale:
        scores = scale * (scores.astype(np.float32) - zero_point)
    labels = []
    if len(argv) > 3:
        with open(argv[3], encoding="utf-8") as f:
            labels = [line.rstrip("\r\n") for line in f]
    for rank, index in enumerate(np.argsort(-scores, kind="stable")[:5], start=1):
        label = "  " + labels[index] if index < len(labels) else ""
        print("{}: class {}  score {:.6f}{}".format(rank, index, float(scores[index]), label))


if __name__ == "__main__":
    main(sys.argv)
