import CImageCodecs

/// One output of an upload: its name (used in URLs) and shape.
public struct VariantSpec: Sendable, Equatable {
    public enum Shape: Sendable, Equatable {
        /// The centred square, `side` pixels (less when the image is smaller).
        case square(Int)
        /// `width` pixels wide (less when the image is narrower), the height in
        /// proportion but at most `2 × width` (a taller image is made narrower).
        case width(Int)
        /// At most `side` pixels on the longer side.
        case longSide(Int)
    }

    public let name: String
    public let shape: Shape

    public init(_ name: String, _ shape: Shape) {
        self.name = name
        self.shape = shape
    }

    /// The output size for an upright image of `width` × `height`; images are never enlarged.
    public func size(width: Int, height: Int) -> (width: Int, height: Int) {
        switch shape {
        case .square(let side):
            let edge = min(side, width, height)
            return (edge, edge)
        case .width(let wanted):
            return Resampler.fit(width: width, height: height, maxWidth: wanted, maxHeight: 2 * wanted)
        case .longSide(let side):
            return Resampler.fit(width: width, height: height, maxWidth: side, maxHeight: side)
        }
    }

    /// The part of the upright image the variant shows.
    func crop(width: Int, height: Int) -> PixelRect {
        switch shape {
        case .square: return .centredSquare(width: width, height: height)
        case .width, .longSide: return PixelRect(x: 0, y: 0, width: width, height: height)
        }
    }
}

/// A variant, encoded.
public struct EncodedVariant: Sendable {
    public let name: String
    public let width: Int
    public let height: Int
    /// A baseline JPEG with no metadata.
    public let jpeg: [UInt8]
}

/// The result of processing an upload.
public struct ProcessedImage: Sendable {
    public let format: ImageProbe.Format
    /// The upright size of the original.
    public let width: Int
    public let height: Int
    public let variants: [EncodedVariant]
}

/// Why an upload could not be processed.
public enum ImageError: Error, Equatable, Sendable {
    /// Not JPEG or PNG: the format recognised, if any.
    case unsupported(String?)
    /// JPEG or PNG that cannot be decoded (truncated, damaged): what the decoder said.
    case malformed(String)
    /// More pixels than allowed.
    case tooManyPixels(width: Int, height: Int)
}

/// Decodes an upload, turns it upright and re-encodes every variant as JPEG.
///
/// Nothing of the original but its pixels survives: the decoder reads pixels only and
/// the encoder writes no metadata segment (no EXIF, GPS, XMP, comment, ICC profile or
/// JFIF header). JPEGs are decoded at the smallest of libjpeg's M/8 scales that still
/// covers the largest variant, so a 12-megapixel photo for a 512-pixel miniature is
/// decoded at an eighth of its area; Lanczos-3 makes the exact size.
public enum ImagePipeline {
    /// - Parameters:
    ///   - maxPixels: the largest width × height accepted, checked from the header before decoding.
    ///   - quality: the JPEG quality of the variants (1–100).
    public static func process(_ bytes: [UInt8], variants: [VariantSpec], maxPixels: Int, quality: Int = 88) throws(ImageError)
        -> ProcessedImage
    {
        let probe: ImageProbe
        do {
            probe = try ImageProbe.read(bytes)
        } catch {
            switch error {
            case .unsupported(let name): throw .unsupported(name)
            case .malformed(let message): throw .malformed(message)
            }
        }
        let (pixels, overflow) = probe.width.multipliedReportingOverflow(by: probe.height)
        guard !overflow, pixels <= maxPixels else { throw .tooManyPixels(width: probe.width, height: probe.height) }
        let uprightWidth = probe.orientation.swapsSides ? probe.height : probe.width
        let uprightHeight = probe.orientation.swapsSides ? probe.width : probe.height
        let stored: Pixels
        switch probe.format {
        case .jpeg:
            let scale = dctScale(width: uprightWidth, height: uprightHeight, variants: variants)
            stored = try Codecs.decodeJPEG(bytes, scale: scale, maxPixels: maxPixels)
        case .png:
            stored = try Codecs.decodePNG(bytes, maxPixels: maxPixels)
        }
        let upright = probe.orientation.apply(to: stored)
        var encoded: [EncodedVariant] = []
        for variant in variants {
            let size = variant.size(width: uprightWidth, height: uprightHeight)
            let crop = variant.crop(width: upright.width, height: upright.height)
            let pixels = Resampler.resize(upright, from: crop, width: size.width, height: size.height)
            encoded.append(
                EncodedVariant(
                    name: variant.name, width: size.width, height: size.height, jpeg: try Codecs.encodeJPEG(pixels, quality: quality)))
        }
        return ProcessedImage(format: probe.format, width: uprightWidth, height: uprightHeight, variants: encoded)
    }

    /// The smallest M in 1...8 such that decoding at M/8 leaves at least as many pixels
    /// as every variant needs, in each direction.
    static func dctScale(width: Int, height: Int, variants: [VariantSpec]) -> Int {
        func covers(_ m: Int) -> Bool {
            let scaledWidth = (width * m + 7) / 8
            let scaledHeight = (height * m + 7) / 8
            return variants.allSatisfy { variant in
                let size = variant.size(width: width, height: height)
                let crop = variant.crop(width: scaledWidth, height: scaledHeight)
                return crop.width >= size.width && crop.height >= size.height
            }
        }
        return (1...8).first(where: covers) ?? 8
    }
}

/// The C codecs, with Swift errors and buffers.
enum Codecs {
    static let maxProgressiveScans: Int32 = 100

    static func decodeJPEG(_ bytes: [UInt8], scale: Int, maxPixels: Int) throws(ImageError) -> Pixels {
        try decode { image, message, size in
            bytes.withUnsafeBufferPointer { data in
                sl_jpeg_decode(data.baseAddress, data.count, Int32(scale), UInt64(maxPixels), maxProgressiveScans, image, message, size)
            }
        }
    }

    static func decodePNG(_ bytes: [UInt8], maxPixels: Int) throws(ImageError) -> Pixels {
        try decode { image, message, size in
            bytes.withUnsafeBufferPointer { data in
                sl_png_decode(data.baseAddress, data.count, UInt64(maxPixels), image, message, size)
            }
        }
    }

    private static func decode(_ call: (UnsafeMutablePointer<sl_image>, UnsafeMutablePointer<CChar>, Int) -> Int32) throws(ImageError)
        -> Pixels
    {
        var image = sl_image()
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { call(&image, $0.baseAddress!, $0.count) }
        guard status == 0, let pointer = image.pixels else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .malformed(text.isEmpty ? "the image cannot be decoded" : text)
        }
        defer { sl_free(pointer) }
        let width = Int(image.width)
        let height = Int(image.height)
        return Pixels(width: width, height: height, bytes: Array(UnsafeBufferPointer(start: pointer, count: width * height * 3)))
    }

    static func encodeJPEG(_ pixels: Pixels, quality: Int) throws(ImageError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = pixels.bytes.withUnsafeBufferPointer { rgb in
            message.withUnsafeMutableBufferPointer { text in
                sl_jpeg_encode(
                    rgb.baseAddress, Int32(pixels.width), Int32(pixels.height), Int32(quality), &output, &length, text.baseAddress,
                    text.count)
            }
        }
        guard status == 0, let output else { throw .malformed("the image cannot be encoded") }
        defer { sl_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }
}
