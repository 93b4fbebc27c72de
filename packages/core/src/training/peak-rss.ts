/** The process's peak resident set size so far, in bytes (all threads, onnxruntime's included). */
export const peakRssBytes = (): number => process.resourceUsage().maxRSS * 1024;
