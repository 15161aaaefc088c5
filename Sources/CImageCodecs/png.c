// libpng's simplified API reports errors through its return value (it catches its
// own longjmp inside), so no jump crosses into Swift.
#include "CImageCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

int sl_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                  sl_image *out, char *message, size_t message_size) {
    png_image image;
    memset(&image, 0, sizeof image);
    memset(out, 0, sizeof *out);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        snprintf(message, message_size, "%s", image.message);
        png_image_free(&image);
        return 1;
    }
    if ((uint64_t)image.width * image.height > max_pixels) {
        snprintf(message, message_size, "the image has %u × %u pixels, more than allowed", image.width, image.height);
        png_image_free(&image);
        return 2;
    }
    image.format = PNG_FORMAT_RGB;
    size_t stride = (size_t)image.width * 3;
    uint8_t *pixels = malloc(stride * image.height);
    if (pixels == NULL) {
        snprintf(message, message_size, "out of memory");
        png_image_free(&image);
        return 1;
    }
    png_color white = { 255, 255, 255 };
    if (!png_image_finish_read(&image, &white, pixels, (png_int_32)stride, NULL)) {
        snprintf(message, message_size, "%s", image.message);
        png_image_free(&image);
        free(pixels);
        return 1;
    }
    out->pixels = pixels;
    out->width = (int)image.width;
    out->height = (int)image.height;
    return 0;
}
