import { pretrainMageTiny } from './src/pipelines/pretrain';
const t = performance.now();
const r = await pretrainMageTiny({ envs: ['tictactoe'], preset: 'laptop', seed: 1, outDir: '/tmp/pt-laptop', log: (l) => console.log(l), evalEpisodes: 16 });
console.log(JSON.stringify({ ...r, lossCurve: r.lossCurve.slice(-3) }, null, 1), ((performance.now() - t) / 1000).toFixed(1), 's');
