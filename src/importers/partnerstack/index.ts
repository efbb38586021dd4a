export { createPartnerStackReader, type PartnerStackReaderOptions } from './partnerstack-reader.ts';
