export { watermarkingPlugin } from './watermarking.plugin.js';
export {
  WatermarkingService,
  WATERMARKING_QUEUE,
  PURGE_QUEUE,
  ASSETS,
  assetUrl,
  jobUrl,
  type AssetName,
  type WatermarkingResult,
  type WatermarkingStatusView,
} from './watermarking.service.js';
export { watermarkingJobs, PURGE_SCHEDULE } from './watermarking.jobs.js';
