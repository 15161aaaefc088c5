import Testing

@testable import Imaging

@Suite("Image processing")
struct ImagingTests {
    static let profile = [VariantSpec("512", .square(512)), VariantSpec("128", .square(128))]
    static let cover = [VariantSpec("1280", .width(1280)), VariantSpec("480", .width(480))]
    static let chat = [VariantSpec("2048", .longSide(2048)), VariantSpec("320", .longSide(320))]

    @Test("the format comes from the bytes: GIF, WebP, HEIC, SVG and unknown bytes are refused, named when known")
    func formats() throws {
        let cases: [([UInt8], String?)] = [
            (Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 20), "GIF"),
            (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8), "WebP"),
            ([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0], "HEIC"),
            (Array("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), "SVG"),
            (Array("just some text".utf8), nil),
            ([], nil),
        ]
        for (bytes, name) in cases {
            #expect(throws: ImageError.unsupported(name)) {
                try ImagePipeline.process(bytes, variants: Self.profile, maxPixels: 40_000_000)
            }
        }
    }

    @Test("a PNG header claiming 60000 × 60000 is refused from the header alone")
    func pixelBomb() throws {
        let header = TestImages.pngHeader(width: 60_000, height: 60_000)
        #expect(throws: ImageError.tooManyPixels(width: 60_000, height: 60_000)) {
            try ImagePipeline.process(header, variants: Self.profile, maxPixels: 40_000_000)
        }
        // Sides whose product does not fit in 64 bits are refused, not multiplied.
        let huge = TestImages.pngHeader(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)
        #expect(throws: ImageError.self) { try ImagePipeline.process(huge, variants: Self.profile, maxPixels: 40_000_000) }
        let wide = TestImages.pngHeader(width: 0x7FFF_FFFF, height: 1)
        #expect(throws: ImageError.self) { try ImagePipeline.process(wide, variants: Self.profile, maxPixels: .max) }
    }

    @Test("a cover variant is at most twice its width tall")
    func tallCover() throws {
        let tall = try TestImages.jpeg(TestImages.quadrants(width: 200, height: 2_000))
        let result = try ImagePipeline.process(tall, variants: Self.cover, maxPixels: 40_000_000)
        #expect(result.variants.map { [$0.width, $0.height] } == [[200, 2_000], [96, 960]])
    }

    @Test("a truncated JPEG and a truncated PNG are refused as damaged, not decoded into grey")
    func truncated() throws {
        let jpeg = try TestImages.jpeg(TestImages.quadrants(width: 400, height: 300))
        for cut in [jpeg.count / 2, jpeg.count - 10, 40] {
            #expect(throws: ImageError.self) {
                try ImagePipeline.process(Array(jpeg.prefix(cut)), variants: Self.profile, maxPixels: 40_000_000)
            }
        }
        var rgba = [UInt8](repeating: 255, count: 64 * 64 * 4)
        rgba[0] = 0
        let png = TestImages.png(width: 64, height: 64, rgba: rgba)
        #expect(throws: ImageError.self) {
            try ImagePipeline.process(Array(png.prefix(png.count - 30)), variants: Self.profile, maxPixels: 40_000_000)
        }
    }

    @Test("a JPEG with EXIF orientation 6, GPS, XMP and a comment comes back upright with no metadata segment")
    func orientationAndMetadata() throws {
        // Stored 800 × 600 (landscape); orientation 6 means it is shown turned clockwise.
        let stored = TestImages.quadrants(width: 800, height: 600)
        let input = TestImages.withMetadata(try TestImages.jpeg(stored), orientation: 6)
        #expect(try ImageProbe.read(input).orientation == .rotatedClockwise)
        let result = try ImagePipeline.process(input, variants: Self.chat, maxPixels: 40_000_000)
        #expect((result.width, result.height) == (600, 800))
        for variant in result.variants {
            // Only frame and table markers: no APPn (0xE0–0xEF) and no comment (0xFE).
            let markers = TestImages.markers(variant.jpeg)
            #expect(markers.allSatisfy { !(0xE0...0xEF).contains($0) && $0 != 0xFE }, "\(variant.name): \(markers)")
            for secret in ["Exif", "secret place", "taken at home", "xmpmeta"] {
                #expect(!String(decoding: variant.jpeg, as: UTF8.self).contains(secret), "\(variant.name) carries \(secret)")
            }
            #expect(variant.height > variant.width, "\(variant.name) is portrait")
            // Turned clockwise, the stored bottom-left (blue) is now top left, the stored
            // top-left (red) top right.
            let decoded = try Codecs.decodeJPEG(variant.jpeg, scale: 8, maxPixels: 40_000_000)
            expectColour(decoded[decoded.width / 8, decoded.height / 8], (0, 0, 255), variant.name)
            expectColour(decoded[decoded.width * 7 / 8, decoded.height / 8], (255, 0, 0), variant.name)
            expectColour(decoded[decoded.width / 8, decoded.height * 7 / 8], (255, 255, 255), variant.name)
            expectColour(decoded[decoded.width * 7 / 8, decoded.height * 7 / 8], (0, 255, 0), variant.name)
        }
    }

    @Test("every orientation value turns a known image upright")
    func everyOrientation() {
        // 3 × 2 stored, pixels numbered 0…5 in the red channel.
        let stored = Pixels(width: 3, height: 2, bytes: (0..<6).flatMap { [UInt8($0), 0, 0] })
        let expected: [Orientation: [[UInt8]]] = [
            .upright: [[0, 1, 2], [3, 4, 5]],
            .mirrored: [[2, 1, 0], [5, 4, 3]],
            .upsideDown: [[5, 4, 3], [2, 1, 0]],
            .upsideDownMirrored: [[3, 4, 5], [0, 1, 2]],
            .transposed: [[0, 3], [1, 4], [2, 5]],
            .rotatedClockwise: [[3, 0], [4, 1], [5, 2]],
            .transverse: [[5, 2], [4, 1], [3, 0]],
            .rotatedCounterClockwise: [[2, 5], [1, 4], [0, 3]],
        ]
        for (orientation, rows) in expected {
            let upright = orientation.apply(to: stored)
            let got = (0..<upright.height).map { y in (0..<upright.width).map { x in upright[x, y].0 } }
            #expect(got == rows, "\(orientation)")
        }
    }

    @Test("variants by use: a square profile photo and miniature, covers by width, chat by the long side; never enlarged")
    func variantSizes() throws {
        let photo = try TestImages.jpeg(TestImages.quadrants(width: 4000, height: 3000), quality: 80)
        let profile = try ImagePipeline.process(photo, variants: Self.profile, maxPixels: 40_000_000)
        #expect(profile.variants.map { [$0.name: [$0.width, $0.height]] } == [["512": [512, 512]], ["128": [128, 128]]])
        let cover = try ImagePipeline.process(photo, variants: Self.cover, maxPixels: 40_000_000)
        #expect(cover.variants.map { [$0.width, $0.height] } == [[1280, 960], [480, 360]])
        let chat = try ImagePipeline.process(photo, variants: Self.chat, maxPixels: 40_000_000)
        #expect(chat.variants.map { [$0.width, $0.height] } == [[2048, 1536], [320, 240]])
        let small = try TestImages.jpeg(TestImages.quadrants(width: 300, height: 200))
        let smallCover = try ImagePipeline.process(small, variants: Self.cover, maxPixels: 40_000_000)
        #expect(smallCover.variants.map { [$0.width, $0.height] } == [[300, 200], [300, 200]])
        let smallProfile = try ImagePipeline.process(small, variants: Self.profile, maxPixels: 40_000_000)
        #expect(smallProfile.variants.map { [$0.width, $0.height] } == [[200, 200], [128, 128]])
        // The profile square is the centre: of 4000 × 3000 quadrants, all four colours meet in the middle.
        let square = try Codecs.decodeJPEG(profile.variants[0].jpeg, scale: 8, maxPixels: 40_000_000)
        expectColour(square[64, 64], (255, 0, 0), "top left of the square")
        expectColour(square[448, 448], (255, 255, 255), "bottom right of the square")
    }

    @Test("the DCT scale is the smallest that still covers the largest variant")
    func dctScale() {
        #expect(ImagePipeline.dctScale(width: 4000, height: 3000, variants: Self.profile) == 2)  // 750 ≥ 512 on the short side
        #expect(ImagePipeline.dctScale(width: 4000, height: 3000, variants: Self.cover) == 3)  // 1500 ≥ 1280
        #expect(ImagePipeline.dctScale(width: 4000, height: 3000, variants: Self.chat) == 5)  // 2500 ≥ 2048
        #expect(ImagePipeline.dctScale(width: 300, height: 200, variants: Self.cover) == 8)
    }

    @Test("a PNG with transparency is laid on white; the size and colours survive")
    func pngTransparency() throws {
        var rgba: [UInt8] = []
        for y in 0..<100 {
            for _ in 0..<200 { rgba += y < 50 ? [0, 0, 255, 255] : [0, 0, 0, 0] }
        }
        let result = try ImagePipeline.process(
            TestImages.png(width: 200, height: 100, rgba: rgba), variants: Self.cover, maxPixels: 40_000_000)
        #expect(result.format == .png)
        #expect((result.width, result.height) == (200, 100))
        let decoded = try Codecs.decodeJPEG(result.variants[0].jpeg, scale: 8, maxPixels: 40_000_000)
        expectColour(decoded[100, 20], (0, 0, 255), "opaque blue")
        expectColour(decoded[100, 80], (255, 255, 255), "transparent, on white")
    }

    @Test("resizing keeps a flat colour flat and a linear ramp linear")
    func resamplingFidelity() {
        let colour: [UInt8] = [200, 100, 50]
        var flatBytes: [UInt8] = []
        for _ in 0..<(97 * 61) { flatBytes += colour }
        let small = Resampler.resize(Pixels(width: 97, height: 61, bytes: flatBytes), width: 23, height: 17)
        var colours = Set<[UInt8]>()
        for offset in stride(from: 0, to: small.bytes.count, by: 3) { colours.insert(Array(small.bytes[offset..<(offset + 3)])) }
        #expect(colours == [colour])
        // A horizontal ramp 0…255 over 1024 pixels, shrunk to 256: each output is the mean
        // of its four inputs, within one level (the edges excepted, where the filter is cut).
        var rampBytes: [UInt8] = []
        for _ in 0..<4 {
            for x in 0..<1024 { rampBytes += [UInt8(x / 4), UInt8(x / 4), UInt8(x / 4)] }
        }
        let ramp = Pixels(width: 1024, height: 4, bytes: rampBytes)
        let shrunk = Resampler.resize(ramp, width: 256, height: 1)
        for x in 3..<253 {
            #expect(abs(Int(shrunk[x, 0].0) - x) <= 1, "x = \(x): \(shrunk[x, 0].0)")
        }
    }

    func expectColour(
        _ got: (UInt8, UInt8, UInt8), _ want: (Int, Int, Int), _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let close = abs(Int(got.0) - want.0) <= 24 && abs(Int(got.1) - want.1) <= 24 && abs(Int(got.2) - want.2) <= 24
        #expect(close, "\(label): got \(got), want \(want)", sourceLocation: sourceLocation)
    }
}
