/** The spellings of one plugin name that the scaffold's files need. */
export interface PluginNames {
  /** Plugin id and file prefix: `image-feed`. */
  id: string;
  /** Class prefix: `ImageFeed`. */
  pascal: string;
  /** Variable prefix: `imageFeed`. */
  camel: string;
  /** Table prefix: `image_feed`. */
  snake: string;
  /** Environment variable prefix: `IMAGE_FEED`. */
  env: string;
}

const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

export function pluginNames(name: string): PluginNames {
  if (!NAME.test(name) || name.length > 40) {
    throw new Error(`plugin name "${name}" must be lower-case words joined by dashes (a-z, 0-9), at most 40 characters, for example "image-feed"`);
  }
  const words = name.split('-');
  const pascal = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return { id: name, pascal, camel: pascal[0]!.toLowerCase() + pascal.slice(1), snake: words.join('_'), env: words.join('_').toUpperCase() };
}
