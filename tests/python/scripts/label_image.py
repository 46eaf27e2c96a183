# A label_image script written for Google's tflite_runtime, in the pattern of TensorFlow Lite's
# Python label_image example: it knows nothing of edgerun. The tests run it unchanged with
# PYTHONPATH=build/python, where tflite_runtime is edgerun's compatibility package.
# Images: any format Pillow reads when it is installed; otherwise raw RGB bytes of the input size.
import argparse
import time

import numpy as np
from tflite_runtime.interpreter import Interpreter
from tflite_runtime.interpreter import load_delegate


def load_labels(filename):
    with open(filename, 'r') as f:
        return [line.strip() for line in f.readlines()]


def load_image(path, width, height):
    try:
        from PIL import Image
        return np.asarray(Image.open(path).convert('RGB').resize((width, height)))
    except Exception:  # no Pillow, or not an image file: raw RGB
        return np.fromfile(path, dtype=np.uint8).reshape(height, width, 3)


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('-i', '--image', required=True, help='image to be classified')
    parser.add_argument('-m', '--model_file', required=True, help='.tflite model to be executed')
    parser.add_argument('-l', '--label_file', help='name of file containing labels')
    parser.add_argument('--input_mean', default=127.5, type=float, help='input_mean')
    parser.add_argument('--input_std', default=127.5, type=float, help='input standard deviation')
    parser.add_argument('--num_threads', default=None, type=int, help='number of threads')
    parser.add_argument('-e', '--ext_delegate', help='external_delegate_library path')
    args = parser.parse_args()

    ext_delegate = None
    if args.ext_delegate:
        try:
            ext_delegate = [load_delegate(args.ext_delegate)]
        except ValueError as e:
            print('delegate not loaded, running on CPU: {}'.format(str(e).splitlines()[0]))

    interpreter = Interpreter(model_path=args.model_file, experimental_delegates=ext_delegate,
                              num_threads=args.num_threads)
    interpreter.allocate_tensors()

    input_details = interpreter.get_input_details()
    output_details = interpreter.get_output_details()

    # check the type of the input tensor
    floating_model = input_details[0]['dtype'] == np.float32

    # NxHxWxC, H:1, W:2
    height = input_details[0]['shape'][1]
    width = input_details[0]['shape'][2]
    img = load_image(args.image, width, height)

    # add N dim
    input_data = np.expand_dims(img, axis=0)

    if floating_model:
        input_data = (np.float32(input_data) - args.input_mean) / args.input_std

    interpreter.set_tensor(input_details[0]['index'], input_data)

    start_time = time.time()
    interpreter.invoke()
    stop_time = time.time()

    output_data = interpreter.get_tensor(output_details[0]['index'])
    results = np.squeeze(output_data)

    top_k = results.argsort()[-5:][::-1]
    labels = load_labels(args.label_file) if args.label_file else None
    for i in top_k:
        label = labels[i] if labels else str(i)
        if floating_model:
            print('{:08.6f}: {}'.format(float(results[i]), label))
        else:
            print('{:08.6f}: {}'.format(float(results[i] / 255.0), label))

    print('time: {:.3f}ms'.format((stop_time - start_time) * 1000))
