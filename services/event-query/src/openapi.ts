/** Kept until the gateway imports `@stratum/event-query/contract`; then this file goes. */
import { contract } from './contract';

export const { errorSchema, openapiSections } = contract;
