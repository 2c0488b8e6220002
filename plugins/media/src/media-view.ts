// The spec's media views live in core (every plugin showing media uses them); re-exported for media's own modules.
export { fileUrl, mediaUrl, imageView, videoView, mediaView } from '@filigrane/core';
