// The widget package's components, as its "node-red-dashboard-2" block names them.
export { default as VisionStreamingLive } from './VisionStreamingLive.vue';
