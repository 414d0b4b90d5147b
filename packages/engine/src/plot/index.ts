// Public API of plotting: page setups, plot, wblock, embedded images and the CLI subcommand.
export { PAPER_SIZES, pageSetupOf, paperName, parsePaper, parseScale, readPageSetup, setPageSetup } from './page-setup.js';
export type { Margins, PageSetup, PageSetupInput, PageSetupResult, PaperSize, PlotArea } from './page-setup.js';
export { layoutPage, plot, plotLayouts, writeAtomic } from './plot.js';
export type { PlotFormat, PlotOptions, PlotResult, PlottedPage } from './plot.js';
export { wblock } from './wblock.js';
export type { WblockOptions } from './wblock.js';
export { embedImage, ensureClasses } from './images.js';
export type { EmbedImageOptions } from './images.js';
export { PLOT_USAGE, plotCommand } from './cli.js';
export type { CliIo } from './cli.js';
