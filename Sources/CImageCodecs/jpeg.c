// libjpeg reports a fatal error by calling error_exit, which must not return: the
// decoder's state is then unusable. Swift cannot unwind through C frames, so the
// jump back to a known frame (setjmp/longjmp) lives here, in C, around every call.
#include "CImageCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char *message;
    size_t message_size;
} error_manager;

typedef struct {
    struct jpeg_progress_mgr base;
    int max_scans;
    error_manager *errors;
} scan_limit;

static void on_error(j_common_ptr info) {
    error_manager *manager = (error_manager *)info->err;
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    snprintf(manager->message, manager->message_size, "%s", text);
    longjmp(manager->jump, 1);
}

// Corrupt data draws warnings that libjpeg would print to stderr and go on from;
// a damaged image is refused instead of being decoded into grey.
static void on_warning(j_common_ptr info, int level) {
    if (level < 0) on_error(info);
}

// A progressive JPEG can hold thousands of tiny scans, each a pass over the whole
// image: a few kilobytes that cost minutes. The scan count is bounded.
static void on_progress(j_common_ptr info) {
    if (info->is_decompressor) {
        j_decompress_ptr decompress = (j_decompress_ptr)info;
        scan_limit *limit = (scan_limit *)info->progress;
        if (decompress->input_scan_number > limit->max_scans) {
            snprintf(limit->errors->message, limit->errors->message_size, "too many progressive scans");
            longjmp(limit->errors->jump, 1);
        }
    }
}

// Errors jump back to the caller's setjmp with the message written; corrupt-data
// warnings count as errors.
static struct jpeg_error_mgr *init_errors(error_manager *errors, char *message, size_t message_size) {
    struct jpeg_error_mgr *base = jpeg_std_error(&errors->base);
    errors->base.error_exit = on_error;
    errors->base.emit_message = on_warning;
    errors->message = message;
    errors->message_size = message_size;
    return base;
}

static void cmyk_to_rgb(uint8_t *row, int width, int inverted) {
    // Adobe writes CMYK inverted (0 = full ink); either way R = (1 - C)(1 - K).
    for (int x = 0; x < width; x++) {
        int c = row[4 * x], m = row[4 * x + 1], y = row[4 * x + 2], k = row[4 * x + 3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        row[3 * x] = (uint8_t)((c * k + 127) / 255);
        row[3 * x + 1] = (uint8_t)((m * k + 127) / 255);
        row[3 * x + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

int sl_jpeg_decode(const uint8_t *data, size_t size, int scale_num, uint64_t max_pixels, int max_scans,
                   sl_image *out, char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    error_manager errors;
    scan_limit progress;
    uint8_t *volatile pixels = NULL;
    uint8_t *volatile row = NULL;
    memset(out, 0, sizeof *out);
    info.err = init_errors(&errors, message, message_size);
    if (setjmp(errors.jump)) {
        jpeg_destroy_decompress(&info);
        free(pixels);
        free(row);
        return 1;
    }
    jpeg_create_decompress(&info);
    // A progressive image keeps every coefficient of the full-size image whatever the
    // output scale: bounded, so a few kilobytes cannot claim gigabytes.
    info.mem->max_memory_to_use = 320L * 1024 * 1024;
    progress.base.progress_monitor = on_progress;
    progress.max_scans = max_scans;
    progress.errors = &errors;
    info.progress = &progress.base;
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    if ((uint64_t)info.image_width * info.image_height > max_pixels) {
        snprintf(message, message_size, "the image has %u × %u pixels, more than allowed", info.image_width, info.image_height);
        jpeg_destroy_decompress(&info);
        return 2;
    }
    int cmyk = info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK;
    info.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    info.scale_num = (unsigned int)scale_num;
    info.scale_denom = 8;
    info.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&info);
    size_t width = info.output_width, height = info.output_height;
    pixels = malloc(width * height * 3);
    row = malloc(width * (size_t)info.output_components);
    if (pixels == NULL || row == NULL) {
        snprintf(message, message_size, "out of memory");
        longjmp(errors.jump, 1);
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW rows[1] = { row };
        size_t y = info.output_scanline;
        jpeg_read_scanlines(&info, rows, 1);
        if (cmyk) cmyk_to_rgb(row, (int)width, info.saw_Adobe_marker);
        memcpy(pixels + y * width * 3, row, width * 3);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    free(row);
    out->pixels = pixels;
    out->width = (int)width;
    out->height = (int)height;
    return 0;
}

// The encoder's output: a buffer of ours that doubles as it fills, so that on an
// error we know exactly what to free (libjpeg's own memory destination frees
// buffers behind the caller's back when it grows).
typedef struct {
    struct jpeg_destination_mgr base;
    uint8_t *buffer;
    size_t capacity;
    size_t length;
    error_manager *errors;
} growing_destination;

static void destination_init(j_compress_ptr info) {
    growing_destination *d = (growing_destination *)info->dest;
    d->base.next_output_byte = d->buffer;
    d->base.free_in_buffer = d->capacity;
}

static boolean destination_grow(j_compress_ptr info) {
    growing_destination *d = (growing_destination *)info->dest;
    size_t grown = d->capacity * 2;
    uint8_t *bigger = realloc(d->buffer, grown);
    if (bigger == NULL) {
        snprintf(d->errors->message, d->errors->message_size, "out of memory");
        longjmp(d->errors->jump, 1);
    }
    d->buffer = bigger;
    d->base.next_output_byte = bigger + d->capacity;
    d->base.free_in_buffer = grown - d->capacity;
    d->capacity = grown;
    return TRUE;
}

static void destination_term(j_compress_ptr info) {
    growing_destination *d = (growing_destination *)info->dest;
    d->length = d->capacity - d->base.free_in_buffer;
}

int sl_jpeg_encode(const uint8_t *rgb, int width, int height, int quality,
                   uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    struct jpeg_compress_struct info;
    error_manager errors;
    growing_destination destination;
    *out = NULL;
    *out_size = 0;
    destination.capacity = (size_t)width * (size_t)height / 4 + 16384;
    destination.buffer = malloc(destination.capacity);
    destination.length = 0;
    destination.errors = &errors;
    if (destination.buffer == NULL) {
        snprintf(message, message_size, "out of memory");
        return 1;
    }
    info.err = init_errors(&errors, message, message_size);
    if (setjmp(errors.jump)) {
        jpeg_destroy_compress(&info);
        free(destination.buffer);
        return 1;
    }
    jpeg_create_compress(&info);
    destination.base.init_destination = destination_init;
    destination.base.empty_output_buffer = destination_grow;
    destination.base.term_destination = destination_term;
    info.dest = &destination.base;
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    info.optimize_coding = TRUE;
    // No JFIF APP0 either: the output carries pixels and nothing else.
    info.write_JFIF_header = FALSE;
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW rows[1] = { (JSAMPROW)(rgb + (size_t)info.next_scanline * (size_t)width * 3) };
        jpeg_write_scanlines(&info, rows, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *out = destination.buffer;
    *out_size = destination.length;
    return 0;
}

void sl_free(void *pointer) { free(pointer); }
