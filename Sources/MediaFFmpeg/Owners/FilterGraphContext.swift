internal import CMediaFFmpeg
import MediaCore

/// Owns an `AVFilterGraph` (freed with `avfilter_graph_free`, which frees every filter in it): a
/// parsed graph description between one `buffer`/`abuffer` source and one `buffersink`/`abuffersink`,
/// or, for a generator (`color=…,drawtext=…`), a sink only. The filter contexts it hands out are
/// the graph's and live as long as it does.
final class FilterGraphContext {
    private var owned: UnsafeMutablePointer<AVFilterGraph>?
    private let graph: UnsafeMutablePointer<AVFilterGraph>
    /// The graph, for this file's extensions.
    fileprivate var graphPointer: UnsafeMutablePointer<AVFilterGraph> { graph }
    /// The source the samples go into (`nil` for a generator).
    private(set) var source: UnsafeMutablePointer<AVFilterContext>?
    /// The sink the filtered frames come out of.
    private(set) var sink: UnsafeMutablePointer<AVFilterContext>?

    init() throws(MediaError) {
        guard let graph = avfilter_graph_alloc() else {
            throw MediaError(.outOfMemory, "cannot allocate a filter graph", ffmpegCall: "avfilter_graph_alloc")
        }
        self.graph = graph
        owned = graph
        FFmpeg.didAllocate()
    }

    deinit {
        avfilter_graph_free(&owned)
        FFmpeg.didFree()
    }

    /// Builds `description` between a source made by `sourceFilter` with `arguments` (none: a
    /// generator graph) and a sink of `sinkFilter`, restricted to `pixelFormats` when given; then
    /// configures the graph.
    func build(
        _ description: String, sourceFilter: String?, arguments: String, sinkFilter: String,
        pixelFormats: [PixelFormat]
    ) throws(MediaError) {
        if let sourceFilter {
            var created: UnsafeMutablePointer<AVFilterContext>?
            try check(
                avfilter_graph_create_filter(&created, avfilter_get_by_name(sourceFilter), "in", arguments, nil, graph),
                calling: "avfilter_graph_create_filter")
            source = created
        }
        guard let sinkContext = avfilter_graph_alloc_filter(graph, avfilter_get_by_name(sinkFilter), "out") else {
            throw MediaError(.outOfMemory, "cannot allocate a \(sinkFilter)", ffmpegCall: "avfilter_graph_alloc_filter")
        }
        if !pixelFormats.isEmpty {
            let formats = pixelFormats.map { $0.avPixelFormat.rawValue }
            try check(
                mp_buffersink_set_pix_fmts(sinkContext, formats, Int32(formats.count)),
                calling: "av_opt_set_int_list(pix_fmts)")
        }
        try check(avfilter_init_str(sinkContext, nil), calling: "avfilter_init_str(buffersink)")
        sink = sinkContext

        // The description's open input is fed by our source ("in"), its open output feeds our sink ("out").
        var fromSource = source.map { Self.endpoint("in", $0) } ?? nil
        var toSink = Self.endpoint("out", sinkContext)
        defer {
            avfilter_inout_free(&fromSource)
            avfilter_inout_free(&toSink)
        }
        try check(
            avfilter_graph_parse_ptr(graph, description, &toSink, &fromSource, nil), calling: "avfilter_graph_parse_ptr"
        )
        try check(avfilter_graph_config(graph, nil), calling: "avfilter_graph_config")
    }

    /// Sets how many threads the graph's filters may use (0: as many as there are CPUs).
    func setThreadCount(_ count: Int) {
        graph.pointee.nb_threads = Int32(clamping: count)
    }

    private static func endpoint(_ name: String, _ context: UnsafeMutablePointer<AVFilterContext>)
        -> UnsafeMutablePointer<AVFilterInOut>?
    {
        guard let endpoint = avfilter_inout_alloc() else { return nil }
        endpoint.pointee.name = av_strdup(name)
        endpoint.pointee.filter_ctx = context
        endpoint.pointee.pad_idx = 0
        endpoint.pointee.next = nil
        return endpoint
    }
}

@available(*, unavailable) extension FilterGraphContext: Sendable {}

extension FilterGraphContext {
    /// Creates one filter of `definition` with `options` in this graph, alone, and returns FFmpeg's code:
    /// negative when the filter refuses its options (used to name the culprit of a graph that fails).
    func probe(_ definition: UnsafePointer<AVFilter>, options: String) -> CInt {
        var created: UnsafeMutablePointer<AVFilterContext>?
        return avfilter_graph_create_filter(
            &created, definition, "probe", options.isEmpty ? nil : options, nil, graphPointer)
    }
}
