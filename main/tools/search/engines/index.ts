import type { Engine } from '../engine-types.js';
import { duckduckgo, duckduckgoLite } from './duckduckgo.js';
import { startpage } from './startpage.js';
import { google } from './google.js';
import { brave, mojeek, yahoo, bing, yandex } from './html-engines.js';
import { wikipedia, qwant, baidu, braveApi, marginalia, tavily, searxng } from './api-engines.js';

/** Every engine WebSearch knows, in the default order of SEARCH_ENGINES. */
export const ENGINES: Engine[] = [wikipedia, duckduckgo, duckduckgoLite, startpage, brave, mojeek, yahoo, qwant, bing, yandex, baidu, google, braveApi, marginalia, tavily, searxng];
