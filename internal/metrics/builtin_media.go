package metrics

// Units of the modality metrics (AIPerf's exact strings).
const (
	UnitImages       Unit = "images"
	UnitImagesPerSec Unit = "images/sec"
	UnitMSPerImage   Unit = "ms/image"
)

const (
	tagNumImages     = "num_images"
	tagAudioDuration = "audio_duration"
)

// mediaMetrics are AIPerf's image and audio metrics ("Modalities"). They
// apply to endpoints that send media (SUPPORTS_IMAGE_ONLY and
// SUPPORTS_AUDIO_ONLY), and have a value only for requests that carried
// images (record.Record.Images) or audio of a known duration
// (record.Record.AudioSeconds); a text-only run therefore reports none of
// them, as in AIPerf.
func mediaMetrics() []*Metric {
	return []*Metric{
		{
			Tag: tagNumImages, Header: "Number of Images", ShortHeader: "Num Images",
			Kind: KindRecord, Unit: UnitImages, Integer: true,
			Flags: FlagSupportsImageOnly, Group: GroupNone,
			record: func(c *recordContext) (float64, bool) {
				if c.rec.Images <= 0 {
					return 0, false
				}
				return float64(c.rec.Images), true
			},
		},
		{
			Tag: "image_throughput", Header: "Image Throughput", ShortHeader: "Image Throughput",
			Kind: KindRecord, Unit: UnitImagesPerSec,
			Flags: FlagSupportsImageOnly,
			Order: 860, Requires: []string{tagNumImages, tagRequestLatency},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagNumImages, tagRequestLatency)
				if !ok || v[1] == 0 {
					return 0, false
				}
				return v[0] / seconds(v[1]), true
			},
		},
		{
			Tag: "image_latency", Header: "Image Latency", ShortHeader: "Image Latency",
			Kind: KindRecord, Unit: UnitMSPerImage,
			Flags: FlagSupportsImageOnly,
			Order: 861, Requires: []string{tagNumImages, tagRequestLatency},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagNumImages, tagRequestLatency)
				if !ok || v[0] == 0 {
					return 0, false
				}
				toMS := nsToMS // v * 1e-6, as AIPerf converts
				return v[1] * toMS / v[0], true
			},
		},
		{
			Tag: tagAudioDuration, Header: "Audio Duration", ShortHeader: "Audio Dur",
			Kind: KindRecord, Unit: UnitSec,
			Flags: FlagSupportsAudioOnly, Group: GroupNone,
			Order: 870,
			record: func(c *recordContext) (float64, bool) {
				s := c.rec.AudioSeconds
				return s, s > 0 && s <= maxAudioSeconds
			},
		},
		{
			// Inverse real-time factor: seconds of input audio per second of
			// request latency; above 1 is faster than real time.
			Tag: "rtfx", Header: "Inverse Real-Time Factor (RTFx)", ShortHeader: "RTFx",
			Kind: KindRecord, Unit: UnitRatio,
			Flags: FlagSupportsAudioOnly | FlagLargerIsBetter,
			Order: 850, Requires: []string{tagAudioDuration, tagRequestLatency},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagAudioDuration, tagRequestLatency)
				if !ok || v[1] <= 0 {
					return 0, false
				}
				return v[0] / seconds(v[1]), true
			},
		},
	}
}

// maxAudioSeconds rejects durations that are not finite (NaN fails the
// comparison too), so no non-finite value reaches an artifact.
const maxAudioSeconds = 1e15
