export { createToltReader, type ToltReaderOptions } from './tolt-reader.ts';
