import { createApp } from 'vue';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import App from './App.vue';
import { router } from './router.ts';

createApp(App).use(router).mount('#app');
