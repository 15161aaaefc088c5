#ifndef SPORTLOOK_CIMAGECODECS_H
#define SPORTLOOK_CIMAGECODECS_H

#include <stddef.h>
#include <stdint.h>

/// Decoded pixels: 8-bit RGB, rows packed (stride = width * 3), owned by the caller
/// (free with sl_free).
typedef struct {
    uint8_t *pixels;
    int width;
    int height;
} sl_image;

/// Decodes a JPEG to RGB, scaled in libjpeg's inverse DCT by scale_num/8 (1...16).
/// Refuses an image of more than max_pixels (read from the header, before any pixel
/// is decoded) and a progressive image of more than max_scans scans.
/// Returns 0 on success; otherwise writes a message and returns non-zero.
int sl_jpeg_decode(const uint8_t *data, size_t size, int scale_num, uint64_t max_pixels, int max_scans,
                   sl_image *out, char *message, size_t message_size);

/// Encodes packed RGB as a baseline JPEG (4:2:0, optimised Huffman tables, no
/// metadata markers at all). *out is allocated; free it with sl_free.
int sl_jpeg_encode(const uint8_t *rgb, int width, int height, int quality,
                   uint8_t **out, size_t *out_size, char *message, size_t message_size);

/// Decodes a PNG to RGB (transparency composed over white, 16-bit channels reduced,
/// palettes expanded). Refuses more than max_pixels before decoding.
int sl_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                  sl_image *out, char *message, size_t message_size);

void sl_free(void *pointer);

#endif
